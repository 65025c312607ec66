import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { LocalErrorCode, isMepError } from '../../host/src/protocol/errors.ts';
import { bundleGuest } from './bundle.ts';

// A project with hand-made packages in node_modules, each shaped like a real one.
function project(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'mep-bundle-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}
const pkg = (name: string, manifest: object, files: Record<string, string>): Record<string, string> => ({
  [`node_modules/${name}/package.json`]: JSON.stringify({ name, version: '1.0.0', ...manifest }),
  ...Object.fromEntries(Object.entries(files).map(([f, t]) => [`node_modules/${name}/${f}`, t])),
});

const FILES = {
  ...pkg('conditions', { exports: { '.': { worker: './worker.js', browser: './browser.js', node: './node.js', default: './node.js' } } }, {
    'worker.js': 'export const build = "worker";',
    'browser.js': 'export const build = "browser";',
    'node.js': 'import { createHash } from "node:crypto"; export const build = "node:" + typeof createHash;',
  }),
  ...pkg('browser-field', { main: 'index.js', browser: { './index.js': './browser.js', fs: false } }, {
    'index.js': 'const fs = require("fs"); module.exports = "node:" + typeof fs.readFileSync;',
    'browser.js': 'const fs = require("fs"); module.exports = "browser:" + typeof fs;',
  }),
  ...pkg('needs-fs', { main: 'index.js' }, { 'index.js': 'module.exports = require("node:fs").existsSync("/");' }),
  ...pkg('middle', { main: 'index.js' }, { 'index.js': 'module.exports = () => require("needs-fs");' }),
  ...pkg('cjs-builtin', { main: 'index.js' }, { 'index.js': 'module.exports = typeof require("os").EOL;' }),
  'picks.ts': 'import { build } from "conditions";\nimport field from "browser-field";\nexport function handle(): number { Host.outputString(build + "|" + field); return 0; }\ndeclare const Host: { outputString(s: string): void };\n',
  'uses-fs.ts': 'import lazy from "middle";\nexport function handle(): number { return lazy() ? 0 : 1; }\n',
  'process.ts': 'import { build } from "conditions";\nimport field from "browser-field";\nimport eol from "cjs-builtin";\nconsole.log([build, field, eol].join("|"));\n',
};

const bundling = suite('bundleGuest :: the build of a package each runtime gets');

bundling('should resolve wasm guests with the worker and browser conditions and the browser field', async () => {
  const dir = project(FILES);
  try {
    const b = await bundleGuest({ entry: join(dir, 'picks.ts'), runtime: 'wasm', cwd: dir });
    assert.match(b.code, /"worker"/);
    assert.not.match(b.code, /"browser"|node:crypto/);
    assert.match(b.code, /"browser:"/); // browser.js, with fs mapped to an empty module
    assert.not.match(b.code, /readFileSync/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

bundling('should report a Node built-in left in a wasm bundle with its importer chain and what to do :: hostile', async () => {
  const dir = project(FILES);
  try {
    await bundleGuest({ entry: join(dir, 'uses-fs.ts'), runtime: 'wasm', cwd: dir });
    assert.unreachable('expected ERR_BUILD');
  } catch (error) {
    assert.ok(isMepError(error));
    if (!isMepError(error)) return;
    assert.is(error.code, LocalErrorCode.Build);
    const [d] = (error.data as { diagnostics: { file: string; message: string }[] }).diagnostics;
    assert.is(d?.file, 'node_modules/needs-fs/index.js');
    assert.ok(d?.message.includes('"node:fs" is a Node.js built-in'), d?.message);
    assert.ok(d?.message.includes('uses-fs.ts -> node_modules/middle/index.js -> node_modules/needs-fs/index.js'), d?.message);
    assert.ok(d?.message.includes('--runtime process'), d?.message);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

bundling('should keep Node built-ins external in a process build, where a CommonJS require of one works', async () => {
  const dir = project(FILES);
  try {
    const b = await bundleGuest({ entry: join(dir, 'process.ts'), runtime: 'process', cwd: dir });
    const out = join(dir, 'guest.mjs');
    writeFileSync(out, b.code);
    assert.is(execFileSync(process.execPath, [out], { encoding: 'utf8' }).trim(), 'node:function|node:function|string');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

bundling.run();

/**
 * `mep init <dir>`: scaffold a new extension that builds, answers `mep call` on its sample model
 * and passes its own behaviour tests (in both runtimes) as generated, installed from wherever this
 * mep-runtime came from.
 */
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { basename, isAbsolute, join, relative, resolve } from 'node:path';
import { HOST_VERSION } from '../../session/host-info.ts';
import { sampleIr } from '../../testing/sample-ir.ts';
import { ExitCode, UsageError } from '../exit-codes.ts';
import type { Command } from './command.ts';
import { onePositional, parseFlags } from './command.ts';
import { ownInstall } from './own-install.ts';

/** What a new extension depends on when nothing better is known: the published release of this mep-runtime. */
export const DEFAULT_RUNTIME_SPEC = `^${HOST_VERSION}`;
/** The TypeScript a new extension type-checks with (`mep build` loads it only when it must check). */
export const TEMPLATE_TYPESCRIPT_SPEC = '^5.7.0';

/** The catalog the template's backend writes for the sample model (its test checks exactly this). */
export const SAMPLE_CATALOG = 'module Acme.Customer.Customer\n  type Customer\n  value findCustomer\n  value schemaVersion\n';

const extensionSource = (id: string): string => `/**
 * ${id}: an MEP 0.1 backend that lists the types and values of each module of a Morphir IR.
 * \`npm run build\` makes the sandboxed wasm module, \`npm run build:process\` a Node process
 * script; the source is the same.
 */
import { defineExtension, diagnostic, textArtifact } from 'mep-runtime/guest-pdk';

/** A Morphir name: its words, \`["find", "customer"]\`. */
type Name = string[];
type Module = [Name[], { value?: { types?: [Name, unknown][]; values?: [Name, unknown][] } }];

const title = (name: Name): string => name.map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join('');
const camel = (name: Name): string => name.map((word, i) => (i === 0 ? word : word.charAt(0).toUpperCase() + word.slice(1))).join('');

export default defineExtension({
  info: { id: '${id}', name: '${id}', version: '0.1.0' },
  backend: {
    targets: ['${id}'],
    irVersions: ['3'],
    generate({ ir }, ctx) {
      ctx.progress('begin', 'Listing types and values');
      const distribution = (ir as { distribution?: unknown }).distribution;
      if (!Array.isArray(distribution) || distribution[0] !== 'Library') {
        // Domain failures are results with diagnostics, never protocol errors.
        return { artifacts: [], diagnostics: [diagnostic('error', 'Expected a Morphir IR Library distribution.', { code: 'EXT001' })] };
      }
      const packageName = (distribution[1] as Name[]).map(title).join('.');
      const modules = (distribution[3] as { modules?: Module[] }).modules ?? [];
      const lines = modules.flatMap(([path, { value }]) => [
        \`module \${packageName}.\${path.map(title).join('.')}\`,
        ...(value?.types ?? []).map(([name]) => \`  type \${title(name)}\`),
        ...(value?.values ?? []).map(([name]) => \`  value \${camel(name)}\`),
      ]);
      ctx.progress('end');
      return { artifacts: [textArtifact('catalog.txt', \`\${lines.join('\\n')}\\n\`)] };
    },
  },
});
`;

// Spelled in pieces: the package build rewrites every import.meta\.url in the bundled command's
// source text to keep module locations (scripts/build-package.ts), this string's included.
const META_URL = ['import', 'meta', 'url'].join('.');

const TEST_SOURCE = `// The extension's behaviour on the sample model, in both runtimes: the test kit builds
// src/extension.ts to a wasm module and to a process script, and runs each (npm test).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { artifactText, minimalIr, openExtension, readIr } from 'mep-runtime/testing';

const entry = new URL('../src/extension.ts', ${META_URL});
const sample = await readIr(fileURLToPath(new URL('../sample/morphir-ir.json', ${META_URL})));

for (const runtime of ['wasm', 'process']) {
  test(\`lists the types and values of the sample model (\${runtime})\`, async () => {
    const extension = await openExtension(entry, { runtime });
    try {
      const result = await extension.generate({ ir: sample });
      assert.equal(result.success, true);
      assert.equal(artifactText(result, 'catalog.txt'), ${JSON.stringify(SAMPLE_CATALOG)});
      // Not a library: a diagnostic, not a protocol error.
      const refused = await extension.generate({ ir: { formatVersion: 3, distribution: ['Application'] } });
      assert.equal(refused.success, false);
      assert.equal(refused.diagnostics[0].code, 'EXT001');
      assert.equal(artifactText(await extension.generate({ ir: minimalIr({ packageName: 'acme.empty' }) }), 'catalog.txt'), '\\n');
    } finally {
      await extension.close();
    }
  });
}
`;

const readme = (id: string): string => `# ${id}

An MEP 0.1 extension written with the mep-runtime guest PDK: a Morphir IR backend that lists the
types and values of each module (\`catalog.txt\`).

\`\`\`sh
npm install                                   # mep-runtime and TypeScript
npm run build                                 # dist/extension.wasm, sandboxed
npm run watch                                 # the same, rebuilt on every change (Ctrl+C stops)
npx mep call dist/extension.wasm generate --ir sample/morphir-ir.json    # one request, the answer as JSON
npm test                                      # the behaviour tests, in wasm and as a process
npm run build:process                         # dist/extension.mjs, a child process speaking MEP on stdio
npx mep conformance dist/extension.wasm       # the MEP 0.1 conformance suite
\`\`\`

Errors the extension throws are reported at the file and line of \`src/\` (the build keeps a
source map). \`extension.json\` describes the package: \`npx mep install .\` installs it into a
project's \`.mep/extensions\`, after which \`mep generate --target ${id}\` finds it.
`;

/**
 * The tsconfig of a new extension: what the wasm sandbox has and nothing else, as `mep build`
 * checks it (ES2023, the guest's globals from `mep-runtime/guest-pdk/globals`, no DOM, no Node),
 * so the editor flags `fetch` or `process` where the build would.
 */
export const TEMPLATE_TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    lib: ['ES2023'],
    types: ['mep-runtime/guest-pdk/globals'],
    module: 'ESNext',
    moduleResolution: 'Bundler',
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    allowImportingTsExtensions: true,
  },
  include: ['src'],
};

/**
 * The files of a new extension, keyed by relative path.
 *
 * @param runtimeSpec the npm spec of its `mep-runtime` dependency (a version range, or e.g.
 *   `file:/path/to/mep-runtime-0.1.0.tgz` for a packed tarball)
 */
export function scaffoldFiles(id: string, runtimeSpec: string = DEFAULT_RUNTIME_SPEC): Record<string, string> {
  const pkg = {
    name: id,
    version: '0.1.0',
    private: true,
    type: 'module',
    scripts: {
      build: 'mep build src/extension.ts -o dist/extension.wasm',
      'build:process': 'mep build src/extension.ts --runtime process -o dist/extension.mjs',
      watch: 'mep build src/extension.ts -o dist/extension.wasm --watch',
      test: 'node --test test/',
    },
    devDependencies: { 'mep-runtime': runtimeSpec, typescript: TEMPLATE_TYPESCRIPT_SPEC },
  };
  const manifest = { id, name: id, version: '0.1.0', runtime: 'wasm', entry: 'dist/extension.wasm', permissions: {} };
  return {
    'package.json': `${JSON.stringify(pkg, null, 2)}\n`,
    'extension.json': `${JSON.stringify(manifest, null, 2)}\n`,
    'tsconfig.json': `${JSON.stringify(TEMPLATE_TSCONFIG, null, 2)}\n`,
    '.gitignore': 'node_modules/\ndist/\n',
    'src/extension.ts': extensionSource(id),
    'sample/morphir-ir.json': `${JSON.stringify(sampleIr(), null, 2)}\n`,
    'test/extension.test.mjs': TEST_SOURCE,
    'README.md': readme(id),
  };
}

export const initCommand: Command = {
  summary: 'scaffold a new TypeScript extension',
  help: `Usage: mep init <dir> [--id ID] [--mep-runtime SPEC]

Creates <dir> with package.json, extension.json, tsconfig.json, src/extension.ts (a small backend
written with the guest PDK), a sample Morphir IR (sample/morphir-ir.json), behaviour tests for both
runtimes written with mep-runtime/testing, and a README. <dir> must be empty or absent; nothing
is overwritten. Prints the commands that install, build, call and test it, to run as printed.

  --id ID             the extension id and target (default: the directory name)
  --mep-runtime SPEC  the project's mep-runtime dependency (default: where this mep was installed
                      from: the registry, a packed tarball or a folder; ${DEFAULT_RUNTIME_SPEC} when it cannot
                      tell); e.g. file:mep-runtime-${HOST_VERSION}.tgz (a relative file: path is taken from
                      the current directory)`,
  async run(argv, io) {
    const { values, positionals } = parseFlags(argv, { id: { type: 'string' }, 'mep-runtime': { type: 'string' } }, 'init');
    const given = onePositional(positionals, 'directory', 'init');
    const dir = resolve(io.cwd, given);
    const own = values['mep-runtime'] === undefined ? ownInstall(HOST_VERSION) : undefined;
    const runtimeSpec = projectSpec(values['mep-runtime'] ?? own?.spec ?? DEFAULT_RUNTIME_SPEC, io.cwd, dir);
    if (runtimeSpec.trim() === '') throw new UsageError(`--mep-runtime needs an npm spec such as ${DEFAULT_RUNTIME_SPEC} or file:path/to/mep-runtime.tgz.`);
    const id = values.id ?? basename(dir).toLowerCase().replace(/[^a-z0-9.-]+/g, '-');
    if (!/^[a-z0-9][a-z0-9.-]*$/.test(id)) throw new UsageError(`'${id}' is not a usable extension id; pass --id with lowercase letters, digits, '.' and '-'.`);
    const existing = await readdir(dir).catch(() => [] as string[]);
    if (existing.length > 0) throw new UsageError(`${dir} is not empty; choose a new directory (nothing was written).`);
    for (const [path, content] of Object.entries(scaffoldFiles(id, runtimeSpec))) {
      await mkdir(join(dir, path, '..'), { recursive: true });
      await writeFile(join(dir, path), content, { flag: 'wx' });
    }
    if (own?.note) io.err(`mep init: the project depends on mep-runtime ${runtimeSpec} (${own.note}).`);
    io.out(`Created ${id} in ${dir} (mep-runtime ${runtimeSpec}). Next:\n  ${nextSteps(given)}`);
    return ExitCode.Ok;
  },
};

/** A relative `file:` spec given from `cwd`, rewritten relative to the project at `dir`. */
function projectSpec(spec: string, cwd: string, dir: string): string {
  if (!spec.startsWith('file:')) return spec;
  const path = spec.slice('file:'.length);
  if (path === '' || isAbsolute(path)) return spec;
  return `file:${relative(dir, resolve(cwd, path)) || '.'}`;
}

/** The shell commands that take a new project from nothing to a call and its tests, verbatim. */
export function nextSteps(dir: string): string {
  return `cd ${shellQuote(dir)} && npm install && npm run build && npx mep call dist/extension.wasm generate --ir sample/morphir-ir.json && npm test`;
}

/** `value` as one POSIX shell word (unchanged when it needs no quoting). */
function shellQuote(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

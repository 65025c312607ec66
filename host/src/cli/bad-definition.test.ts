// A malformed defineExtension(...) is refused where the author meets it, in both runtimes: a wasm
// build fails (the definition is checked before the snapshot) with a diagnostic at the entry's
// line, and a process extension dies at start-up with the refusal above its stack, mapped to the
// same line; never a session whose initialize result the host then rejects.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildGuest } from '../../../build/guest/index.ts';
import { isMepError, LocalErrorCode } from '../protocol/errors.ts';
import type { StackFrame } from '../transport/source-map/stack.ts';
import { captureIo } from './io.ts';
import { main } from './main.ts';

// A frontend with `irVersion` for `irVersions`, as in the issue; the call is on line 5.
const ENTRY = `import { defineExtension } from 'mep-runtime/guest-pdk';

const compile = () => ({ irVersion: '3', ir: null });
// The definition below is on line 5.
export default defineExtension({ info: { id: 'acme.typo', name: 'Typo', version: '0.1.0' }, frontend: { languages: [{ id: 'x' }], irVersion: ['3'], compile } } as never);
`;
const LINE = 5;

const dir = mkdtempSync(join(tmpdir(), 'mep-bad-definition-'));
const entry = join(dir, 'src', 'extension.ts');

const Refused = suite('defineExtension :: a malformed definition is refused at build (wasm) and at start-up (process)');

Refused.before(() => {
  mkdirSync(join(dir, 'src'), { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'typo', private: true, type: 'module' }));
  writeFileSync(entry, ENTRY);
});
Refused.after(() => rmSync(dir, { recursive: true, force: true }));

Refused('should fail the wasm build with a diagnostic at the entry line naming the member, and write nothing', async () => {
  const out = join(dir, 'dist', 'typo.wasm');
  try {
    await buildGuest({ entry, outFile: out, cwd: dir, typecheck: false });
    assert.unreachable('the build succeeded');
  } catch (error) {
    assert.ok(isMepError(error), String(error));
    assert.is(error.code, LocalErrorCode.Build);
    const data = error.data as { diagnostics: { file: string; line: number; message: string }[]; origin: StackFrame };
    assert.equal([data.diagnostics[0]?.file, data.diagnostics[0]?.line], ['src/extension.ts', LINE]);
    assert.equal([data.origin.file, data.origin.line], ['src/extension.ts', LINE]);
    assert.match(data.diagnostics[0]?.message ?? '', /frontend\.irVersions\b/);
  }
  assert.not.ok(existsSync(out));
  const io = captureIo(dir);
  assert.is(await main(['build', 'src/extension.ts', '-o', 'dist/typo.wasm', '--no-typecheck'], io), 1);
  assert.match(io.stderr.join('\n'), new RegExp(`^src/extension\\.ts:${LINE}:\\d+: .*frontend\\.irVersions`, 'm'));
});

Refused('should stop a process extension at start-up with the refusal and the author line, as mep describe shows by default', async () => {
  const script = join(dir, 'dist', 'typo.mjs');
  await buildGuest({ entry, outFile: script, runtime: 'process', cwd: dir, typecheck: false });
  const json = captureIo(dir);
  assert.is(await main(['describe', script, '--json'], json), 3);
  const error = JSON.parse(json.stdout.join('\n')).error as { code: string; data: { origin: StackFrame; exception: string } };
  assert.is(error.code, LocalErrorCode.ExtensionCrashed);
  assert.equal([error.data.origin.file, error.data.origin.line], ['src/extension.ts', LINE]);
  // The exception line names the member and what it expects (Node prints the error's data below the stack).
  assert.match(error.data.exception, /^MepError: defineExtension: .*frontend\.irVersions: missing/);
  const plain = captureIo(dir);
  assert.is(await main(['describe', script], plain), 3);
  assert.match(plain.stderr[1] ?? '', /frontend\.irVersion: not a member/);
  assert.match(plain.stderr[2] ?? '', new RegExp(`^ {2}at src/extension\\.ts:${LINE}:\\d+$`));
});

Refused.run();

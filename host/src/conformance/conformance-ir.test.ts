import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineExtension, diagnostic } from '../../../guest-pdk/src/index.ts';
import type { Extension } from '../../../guest-pdk/src/define-extension.ts';
import { captureIo } from '../cli/io.ts';
import { main } from '../cli/main.ts';
import { createInProcessTransport } from '../testing/in-process-transport.ts';
import { runConformance, type CaseResult } from './runner.ts';

const isLibrary = (ir: unknown): boolean => Array.isArray((ir as { distribution?: unknown }).distribution) && (ir as { distribution: unknown[] }).distribution[0] === 'Library';
const notLibrary = () => [diagnostic('error', 'not a Library distribution', { code: 'invalid_ir' })];

/** A validator and transform; `options.strict` makes the validator report an error. */
const both = defineExtension({
  info: { id: 'conformance.ir', name: 'IR ops', version: '1.0.0' },
  validator: {
    irVersions: ['3'],
    validate: ({ ir, options }) => (isLibrary(ir) ? { diagnostics: options?.strict ? [diagnostic('error', 'strict')] : [] } : { diagnostics: notLibrary() }),
  },
  transform: { irVersions: ['3'], transform: ({ ir }) => (isLibrary(ir) ? { irVersion: '3', ir } : { ir: null, diagnostics: notLibrary() }) },
});

const run = (extension: Extension, options?: Record<string, unknown>): Promise<CaseResult[]> => runConformance({ open: async () => createInProcessTransport(extension), ...(options ? { options } : {}) });
const named = (results: CaseResult[], text: RegExp): CaseResult[] => results.filter((r) => text.test(r.name));

const PICKY = `import { defineExtension, diagnostic } from 'mep-runtime/guest-pdk';
export default defineExtension({
  info: { id: 'picky', name: 'picky', version: '1.0.0' },
  validator: {
    irVersions: ['3'],
    validate: ({ options }) => (options?.colour ? { success: true, diagnostics: [diagnostic('error', 'colour ' + String(options.colour))] } : { diagnostics: [] }),
  },
});
`;

const Ir = suite('conformance :: validators and transforms');

Ir('should run the validate and transform cases against an extension that has both, and pass them', async () => {
  const results = await run(both);
  const ran = named(results, /validate|transform/);
  assert.ok(ran.length >= 5, ran.map((r) => r.name).join(', '));
  assert.equal(ran.filter((r) => r.status !== 'passed'), []);
});

Ir('should fail a validator that accepts invalid IR, and a transform that succeeds without IR, by case name', async () => {
  const lax = defineExtension({
    info: { id: 'lax', name: 'Lax', version: '1.0.0' },
    validator: { irVersions: ['3'], validate: () => ({ diagnostics: [] }) },
    transform: { irVersions: ['3'], transform: () => ({ irVersion: '3', ir: null, success: true }) },
  });
  const results = await run(lax);
  assert.equal(named(results, /invalid IR/).filter((r) => /validate|transform/.test(r.name)).map((r) => r.status), ['failed', 'failed']);
  assert.match(String(named(results, /^validate of invalid IR/)[0]?.reason), /validate of invalid IR reported success/);
  assert.is(named(results, /^transform returns/)[0]?.status, 'failed', 'a successful transform without IR');
});

Ir('should send --option to every operation case (a strict validator then fails validate of the sample)', async () => {
  const strict = await run(both, { strict: true });
  assert.is(named(strict, /^validate returns/)[0]?.status, 'passed', 'an error with success false is conformant');
  const dir = await mkdtemp(join(tmpdir(), 'mep-conformance-option-'));
  try {
    // A process validator that breaks a rule only when given the option colour: mep conformance sends --option.
    await writeFile(join(dir, 'picky.ts'), PICKY);
    const build = captureIo(dir);
    assert.is(await main(['build', 'picky.ts', '--runtime', 'process', '-o', 'picky.mjs', '--no-typecheck'], build), 0, build.stderr.join('\n'));
    const plain = captureIo(dir);
    assert.is(await main(['conformance', './picky.mjs', '--filter', 'validate returns'], plain), 0, plain.stdout.join('\n'));
    const wrong = captureIo(dir);
    assert.is(await main(['conformance', './picky.mjs', '--filter', 'validate returns', '--option', 'colour=blue'], wrong), 1);
    assert.match(wrong.stdout.join('\n'), /validate reported success with an error diagnostic/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

Ir.run();

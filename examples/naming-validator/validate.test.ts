import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { captureIo } from '../../host/src/cli/io.ts';
import { main } from '../../host/src/cli/main.ts';
import { REPO_ROOT, builtExample } from '../testing/built.ts';
import { validateNaming } from './src/validate.ts';
import { convertV3ToV4 } from '../avro/src/v3-to-v4.ts';

const irPath = (name: string) => join(REPO_ROOT, 'fixtures/ir', name, 'morphir-ir.json');
const ir = (name: string) => JSON.parse(readFileSync(irPath(name), 'utf8'));

const Rules = suite('naming validator :: rules');

Rules('should flag each rule at the offending FQName and member', () => {
  const { success, diagnostics } = validateNaming(ir('naming'), { forbiddenWords: ['data'], maxWords: 4 });
  assert.is(success, false);
  const found = diagnostics.map((d) => `${d.code} ${d.location?.uri} ${d.data?.member ?? ''}`.trim());
  assert.equal(found, [
    'NAMING001 morphir-fqname:acme/naming:orders#orders-data-record',
    'NAMING004 morphir-fqname:acme/naming:orders#orders-data-record',
    'NAMING002 morphir-fqname:acme/naming:orders#point x',
    'NAMING002 morphir-fqname:acme/naming:orders#point y',
    'NAMING003 morphir-fqname:acme/naming:orders#closed-for-good-with-no-way-back',
    'NAMING002 morphir-fqname:acme/naming:orders#scale k',
    'NAMING002 morphir-fqname:acme/naming:orders#scale p',
    'NAMING003 morphir-fqname:acme/naming:orders#total-of-every-line-in-the-order',
  ]);
  assert.ok(diagnostics.every((d) => d.location?.range.start.line === 0));
});

Rules('should report the same findings for the model written as IR v4', () => {
  const options = { forbiddenWords: ['data'], maxWords: 4 };
  for (const style of ['wrapped', 'compact'] as const) {
    assert.equal(validateNaming(convertV3ToV4(ir('naming'), style), options), validateNaming(ir('naming'), options), style);
  }
  const v4 = JSON.parse(readFileSync(join(REPO_ROOT, 'fixtures/ir/reference/v4-morphir-website-books-and-records-example.json'), 'utf8'));
  assert.ok(validateNaming(v4, { maxWords: 2 }).diagnostics.some((d) => d.code === 'NAMING003'));
});

Rules('should pass a clean model and only warn without forbidden words', () => {
  assert.is(validateNaming(ir('customer')).success, true);
  const relaxed = validateNaming(ir('naming'), { maxWords: 10 });
  assert.is(relaxed.success, true);
  assert.not.ok(relaxed.diagnostics.some((d) => d.code === 'NAMING001' || d.code === 'NAMING003'));
});

Rules('should report bad options and bad IR as diagnostics', () => {
  assert.is(validateNaming(ir('naming'), { maxWords: 0 }).diagnostics[0].code, 'NAMING000');
  assert.is(validateNaming(ir('naming'), { forbiddenWords: ['Data'] }).diagnostics[0].code, 'NAMING000');
  assert.is(validateNaming(ir('naming'), { colour: 'red' }).diagnostics[0].code, 'NAMING000');
  assert.is(validateNaming({ distribution: [] }).diagnostics[0].code, 'missing_format_version');
});
Rules.run();

const Cli = suite('naming validator :: sandboxed, through mep validate');

Cli('should validate through the wasm build and render the findings like a compiler', async () => {
  const wasm = await builtExample('naming-validator', 'wasm');
  const io = captureIo(REPO_ROOT);
  const code = await main(['validate', '--extension', wasm, '--input', irPath('naming'), '--option', 'forbiddenWords=["data"]', '--option', 'maxWords=4'], io);
  assert.is(code, 1, io.stderr.join('\n'));
  const text = io.stderr.join('\n') + io.stdout.join('\n');
  assert.match(text, /error\[NAMING001\]/);
  assert.match(text, /morphir-fqname:acme\/naming:orders#point/);
  const json = captureIo(REPO_ROOT);
  assert.is(await main(['validate', '--extension', wasm, '--input', irPath('customer'), '--json'], json), 0, json.stderr.join('\n'));
  assert.is(JSON.parse(json.stdout.join('\n')).success, true);
  // An IR v4 document is accepted (irVersions 3 and 4) and checked the same way.
  const v4 = captureIo(REPO_ROOT);
  const books = join(REPO_ROOT, 'fixtures/ir/reference/v4-morphir-website-books-and-records-example.json');
  assert.is(await main(['validate', '--extension', wasm, '--input', books, '--option', 'maxWords=2', '--json'], v4), 0, v4.stderr.join('\n'));
  assert.ok(JSON.parse(v4.stdout.join('\n')).diagnostics.some((d: { code: string }) => d.code === 'NAMING003'));
});
Cli.run();

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LocalErrorCode, isMepError } from '../protocol/errors.ts';
import { launchSpecOfArgument } from '../cli/commands/extension-argument.ts';
import { parseGrantFlags } from '../cli/commands/grant-flags.ts';
import { captureIo } from '../cli/io.ts';
import { withGrants } from './launch-grants.ts';
import { specFromPath } from './launch.ts';
import { parseManifest } from './manifest.ts';
import { launchSpecOf } from './package-launch.ts';
import { withProject } from './test-support.ts';

const manifest = (permissions: unknown) => ({ id: 'acme.clock', name: 'Clock', version: '1.0.0', runtime: 'wasm', entry: 'ext.wasm', permissions });

const grants = suite('launch grants :: manifest permissions and mep flags');

grants('should grant what extension.json permissions ask for, and nothing by default', () => {
  const spec = launchSpecOf(parseManifest(manifest({ clock: true, random: true }), 'extension.json'), '/pkg');
  assert.equal(spec.wasm?.grants, { clock: true, random: true });
  assert.is(launchSpecOf(parseManifest(manifest({ clock: true }), 'extension.json'), '/pkg').wasm?.grants?.random, undefined);
  assert.is(launchSpecOf(parseManifest(manifest(undefined), 'extension.json'), '/pkg').wasm, undefined);
  assert.is(launchSpecOf(parseManifest(manifest({ clock: false }), 'extension.json'), '/pkg').wasm, undefined);
});

grants('should refuse a grant that is not a boolean, naming the member :: hostile', () => {
  try {
    parseManifest(manifest({ clock: 'yes' }), 'extension.json');
    assert.unreachable('expected a refusal');
  } catch (error) {
    assert.ok(isMepError(error));
    if (!isMepError(error)) return;
    assert.is(error.code, LocalErrorCode.Registry);
    const issues = (error.data as { issues: { path: (string | number)[] }[] }).issues;
    assert.equal(issues[0]?.path, ['permissions', 'clock']);
  }
});

grants('should add flag grants to a spec without dropping its config or other grants', () => {
  const base = { ...specFromPath('/x/ext.wasm'), wasm: { grants: { config: { a: '1' }, random: true }, isolation: 'inline' as const } };
  const spec = withGrants(base, parseGrantFlags({ 'allow-clock': true }));
  assert.equal(spec.wasm?.grants, { config: { a: '1' }, random: true, clock: true });
  assert.is(spec.wasm?.isolation, 'inline');
  assert.is(withGrants(base, parseGrantFlags({})), base);
  assert.equal(parseGrantFlags({ 'allow-clock': true, 'allow-random': true }), { clock: true, random: true });
});

grants('should give --allow-clock and --allow-random to an extension run by path', async () => {
  await withProject(async ({ project }) => {
    await mkdir(join(project, 'out'));
    await writeFile(join(project, 'out', 'ext.wasm'), new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]));
    const io = captureIo(project);
    const plain = await launchSpecOfArgument('out/ext.wasm', io);
    assert.is(plain?.wasm, undefined);
    const granted = await launchSpecOfArgument('out/ext.wasm', io, undefined, parseGrantFlags({ 'allow-clock': true, 'allow-random': true }));
    assert.equal(granted?.wasm?.grants, { clock: true, random: true });
  });
});

grants.run();

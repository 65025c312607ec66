// `mep generate` without --target (issue 36): the only target of the only backend installed, and
// a refusal saying to pass --target when that is not one.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { backend, repoRoot, withProject, writePackage } from '../../registry/test-support.ts';
import type { TempProject } from '../../registry/test-support.ts';
import { captureIo } from '../io.ts';
import { main } from '../main.ts';

const ir = join(repoRoot, 'fixtures/mep/ir/business-terms.json');
const Target = suite('cli :: mep generate without --target');

async function install(t: TempProject, id: string, targets: string[]): Promise<void> {
  const io = captureIo(t.project);
  assert.is(await main(['install', await writePackage(join(t.root, 'src', id), { id, capabilities: backend(...targets) })], io), 0, io.stderr.join('\n'));
}

async function generate(t: TempProject, ...extra: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = captureIo(t.project);
  const code = await main(['generate', '--input', ir, '--output', 'out', ...extra], io);
  return { code, out: io.stdout.join('\n'), err: io.stderr.join('\n') };
}

Target('uses the only target of the only backend installed', () =>
  withProject(async (t) => {
    await install(t, 'acme.one', ['echo']);
    const run = await generate(t);
    assert.is(run.code, 0, run.err + run.out);
    assert.match(run.out, /Generated \d+ artifact/);
    assert.ok(readdirSync(join(t.project, 'out')).length > 0);
  }),
);

Target('asks for --target when the backend has several targets, or two backends are installed', () =>
  withProject(async (t) => {
    await install(t, 'acme.two', ['echo', 'json']);
    const several = await generate(t);
    assert.is(several.code, 2, several.err + several.out);
    assert.match(several.err, /claims the targets echo, json: pass --target/);
    await install(t, 'acme.other', ['yaml']);
    const two = await generate(t);
    assert.not.equal(two.code, 0);
    assert.match(two.err, /Ambiguous provider.*Pass --target <target> or --extension/s);
  }),
);

Target.run();

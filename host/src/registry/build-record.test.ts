import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildRecordPath, writeBuildRecord } from './build-record.ts';
import { withGuessedTemp } from './testing/guessed-temp.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));

/** A folder with a built output `ext.wasm` from `src.ts`, and its record. */
async function built(): Promise<{ dir: string; out: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'mep-build-record-'));
  writeFileSync(join(dir, 'src.ts'), 'export {}');
  const out = join(dir, 'ext.wasm');
  writeFileSync(out, 'built bytes');
  await writeBuildRecord(out, join(dir, 'src.ts'), 'wasm', [join(dir, 'src.ts')]);
  return { dir, out };
}

const Record = suite('build record (mep build → mep pack)');

Record('should count a FIFO or a device a crafted record names as a changed source, without reading it (mep pack neither hangs nor fills memory)', async () => {
  const { dir, out } = await built();
  try {
    assert.is(spawnSync('mkfifo', [join(dir, 'pipe')]).status, 0);
    const record = JSON.parse(readFileSync(buildRecordPath(out), 'utf8'));
    record.inputs.push(['pipe', '0'.repeat(64)], ['/dev/zero', '0'.repeat(64)]);
    writeFileSync(buildRecordPath(out), JSON.stringify(record));
    // In a child: before, reading the FIFO blocked for good (and /dev/zero would fill memory).
    const script = `import { staleSources } from ${JSON.stringify(join(root, 'host/src/registry/build-record.ts'))}; console.log(JSON.stringify(staleSources(${JSON.stringify(out)}, ${JSON.stringify(dir)})));`;
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: root, timeout: 20_000, encoding: 'utf8' });
    assert.is(run.signal, null, 'staleSources returned (it was not stopped at the timeout)');
    const stale = JSON.parse(run.stdout) as string[];
    assert.is(stale.length, 2, run.stdout);
    assert.ok(stale[0] === 'pipe' && stale[1]?.endsWith('dev/zero'), run.stdout);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

Record('should not read an output that is a FIFO or a link (to /dev/zero) to match its record: mep build without arguments and mep pack read it without end :: output', async () => {
  const { dir, out } = await built();
  try {
    const record = readFileSync(buildRecordPath(out));
    // A cloned project's dist/ with the output a FIFO, or a link to /dev/zero, and a record beside
    // each: `mep build` (no arguments) read /dev/zero to 1.4 GB in 15 s, in one synchronous read
    // that SIGTERM did not stop; a FIFO blocked it for good.
    const fifo = join(dir, 'fifo.mjs');
    const zero = join(dir, 'zero.mjs');
    assert.is(spawnSync('mkfifo', [fifo]).status, 0);
    symlinkSync('/dev/zero', zero);
    for (const o of [fifo, zero]) writeFileSync(buildRecordPath(o), record);
    const script = `import { readBuildRecord, staleSources } from ${JSON.stringify(join(root, 'host/src/registry/build-record.ts'))}; console.log(JSON.stringify([${[fifo, zero].map((o) => `readBuildRecord(${JSON.stringify(o)}) ?? null, staleSources(${JSON.stringify(o)}, ${JSON.stringify(dir)})`).join(', ')}]));`;
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: root, timeout: 20_000, encoding: 'utf8' });
    assert.is(run.signal, null, 'returned, not stopped at the timeout');
    assert.equal(JSON.parse(run.stdout), [null, [], null, []], 'no record describes them: nothing read');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

Record('should not write the record through a link planted at its temporary name', async () => {
  const { dir, out } = await built();
  const victim = join(dir, 'victim.txt');
  try {
    writeFileSync(victim, 'keep me');
    // The name the shared atomic writer really picks next, guessed and planted as a link to the victim.
    let planted = '';
    await withGuessedTemp(
      buildRecordPath(out),
      (temp) => symlinkSync(victim, (planted = temp)),
      () => writeBuildRecord(out, join(dir, 'src.ts'), 'wasm', [join(dir, 'src.ts')]),
    );
    assert.is(readFileSync(victim, 'utf8'), 'keep me');
    assert.is(readlinkSync(planted), victim, 'the planted link is left as it was, not followed nor removed');
    assert.is(JSON.parse(readFileSync(buildRecordPath(out), 'utf8')).format, 'mep-build-record-1');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

Record.run();

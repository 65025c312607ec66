/**
 * What running a process extension from a private copy of its pinned bytes costs per session
 * start (issue 31): `node --import tsx bench/pinned-copy.bench.ts`.
 *
 * Before every session an installed process entry is hashed against its lock. The baseline is
 * that check alone (`verifyArtifact`, what the host did before); measured is that check and
 * `pinnedCopy`, which reuses the private copy of the package made for that pin while its files
 * are unchanged (the copy itself is made once per pin, shown apart). Medians of 40 calls, for the Avro example built as a process and for a
 * 32 MiB executable. Goal: a session start with a copy already made ≤ 1.5× the check alone.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { verifyArtifact } from '../host/src/registry/integrity.ts';
import { pinnedCopy } from '../host/src/registry/pinned-copy.ts';
import { BENCH_CACHE, ROOT, Report, buildBoth, median, ms, progress, sample } from './lib.ts';

const report = new Report('pinned copy (issue 31)');
const dir = join(BENCH_CACHE, 'pinned-copy');
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });

progress('building examples/avro/extension.ts as a process');
const avro = readFileSync((await buildBoth(join(ROOT, 'examples/avro/extension.ts'), 'avro')).process);
const entries: [string, Uint8Array][] = [
  [`the Avro example (${(avro.length / 1024).toFixed(0)} KiB script)`, avro],
  ['a 32 MiB executable', randomBytes(32 * 1024 * 1024)],
];

for (const [what, bytes] of entries) {
  const name = `entry-${bytes.length}.mjs`;
  const file = join(dir, name);
  writeFileSync(file, bytes);
  const expected = createHash('sha256').update(bytes).digest('hex');
  const lock = join(dir, 'extensions.lock');
  const pin = { extension: 'bench.pinned', file, expected, lock };
  const copy = { extension: 'bench.pinned', dir, lock, entry: name, files: { [name]: expected } };
  const first = performance.now();
  await pinnedCopy(copy);
  const made = performance.now() - first;
  const check = median(await sample(40, 5, () => verifyArtifact(pin)));
  const reused = median(await sample(40, 5, async () => {
    await verifyArtifact(pin);
    await pinnedCopy(copy);
  }));
  report.row(`${what}: the copy, made once per hash`, ms(made));
  report.goal({ what: `${what}: session start, copy reused`, measured: ms(reused), baseline: `${ms(check)} (hash check alone)`, ratio: reused / check, ratioMeaning: 'reused / check', direction: 'atMost', target: 1.5 });
}
report.print();
rmSync(dir, { recursive: true, force: true });

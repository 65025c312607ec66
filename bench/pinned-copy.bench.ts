/**
 * What running a process extension from a private copy of its pinned bytes costs per session
 * start (issue 31): `node --import tsx bench/pinned-copy.bench.ts`.
 *
 * Before every session an installed process entry is hashed against its lock. The baseline is
 * that check alone (`verifyArtifact`, what the host did before); measured is `pinnedCopy`, which
 * hashes the entry and reuses the private copy made for that hash (the copy itself is made once
 * per hash, shown apart). Medians of 40 calls, for the Avro example built as a process and for a
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
  const file = join(dir, `entry-${bytes.length}.mjs`);
  writeFileSync(file, bytes);
  const pin = { extension: 'bench.pinned', file, expected: createHash('sha256').update(bytes).digest('hex'), lock: join(dir, 'extensions.lock') };
  const first = performance.now();
  await pinnedCopy(pin);
  const made = performance.now() - first;
  const check = median(await sample(40, 5, () => verifyArtifact(pin)));
  const reused = median(await sample(40, 5, () => pinnedCopy(pin)));
  report.row(`${what}: the copy, made once per hash`, ms(made));
  report.goal({ what: `${what}: session start, copy reused`, measured: ms(reused), baseline: `${ms(check)} (hash check alone)`, ratio: reused / check, ratioMeaning: 'reused / check', direction: 'atMost', target: 1.5 });
}
report.print();
rmSync(dir, { recursive: true, force: true });

// Exact positions in both runtimes (issue 33): one extension built to wasm and to a process
// script by mep build, whose throws (in a nested function, an arrow, a method, a template
// literal, after an expression spread over lines, inside a callback) `mep call` reports at the
// same file:line:col of the author's TypeScript in both runtimes, the columns being where Node
// places them. The wasm engine's part is build/engine/patches/positions.ts.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildBothRuntimes } from '../../../build/guest/testing/build-both.ts';
import { captureIo } from './io.ts';
import { main } from './main.ts';

const DEEP = `export function nested(n: number): number {
  function inner(m: number): number {
    if (m > 0) throw new Error('nested ' + m);
    return m;
  }
  return inner(n);
}

export const arrow = (x: { v?: { w: number } }) => x.v!.w;

export class Box {
  constructor(private readonly value: unknown) {}
  method(): number {
    return (this.value as { a: { b: number } }).a.b;
  }
}

export function template(o: { name?: { first: string } }): string {
  return \`hello \${o.name!.first} and more\`;
}

export function multiline(a: number): number {
  const total = sum(
    a,
    a * 2,
    (null as unknown as { z: number }).z,
  );
  return total;
}

function sum(...xs: number[]): number {
  return xs.reduce((p, q) => p + q, 0);
}

export function thrower(): never {
  throw new RangeError('thrown');
}

export function callsThrower(items: number[]): number[] {
  return items.map(
    (i) => i + thrower(),
  );
}
`;

const EXTENSION = `import { defineExtension, textArtifact } from 'mep-runtime/guest-pdk';
import { nested, arrow, Box, template, multiline, callsThrower } from './lib/deep.ts';

const cases: Record<string, () => unknown> = {
  nested: () => nested(1),
  arrow: () => arrow({}),
  method: () => new Box({}).method(),
  template: () => template({}),
  multiline: () => multiline(1),
  callback: () => callsThrower([1]),
};

export default defineExtension({
  info: { id: 'positions', name: 'positions', version: '0.1.0' },
  backend: {
    targets: ['positions'],
    irVersions: ['3'],
    generate({ options }) {
      cases[String(options.how)]!();
      return { artifacts: [textArtifact('a.txt', 'a')] };
    },
  },
});
`;

/** Where Node places each throw and its callers in the author's files (the first three frames). */
const EXPECTED: Record<string, string[]> = {
  nested: ['src/lib/deep.ts:3:22', 'src/lib/deep.ts:6:10', 'src/extension.ts:5:17'], // throw new Error: at `new`
  arrow: ['src/lib/deep.ts:9:57', 'src/extension.ts:6:16', 'src/extension.ts:19:32'], // x.v!.w: at `w`
  method: ['src/lib/deep.ts:14:51', 'src/extension.ts:7:29', 'src/extension.ts:19:32'],
  template: ['src/lib/deep.ts:19:27', 'src/extension.ts:8:19', 'src/extension.ts:19:32'],
  multiline: ['src/lib/deep.ts:26:40', 'src/extension.ts:9:20', 'src/extension.ts:19:32'], // the `.z` on the third line, not the call's last line
  callback: ['src/lib/deep.ts:36:9', 'src/lib/deep.ts:41:16', 'src/lib/deep.ts:40:16'], // thrower() in the arrow, items.map( at `map`
};

const dir = mkdtempSync(join(tmpdir(), 'mep-positions-'));
const built = { wasm: join(dir, 'dist', 'positions.wasm'), process: join(dir, 'dist', 'positions.mjs') };

/** The author's frames `mep call --verbose` prints for a throw, as file:line:col. */
async function framesOf(artifact: string, how: string): Promise<string[]> {
  const io = captureIo(dir);
  const code = await main(['call', artifact, 'generate', '{"target":"positions"}', '--ir', 'ir.json', '--option', `how=${how}`, '--verbose'], io);
  assert.is(code, 3, io.stderr.join('\n'));
  // `at fn (src/…:l:c)`, or `at src/…:l:c` for a frame V8 prints without a function name.
  return io.stderr.flatMap((line) => /(?:\(|at )(src\/[^()\s]+)\)?$/.exec(line)?.[1] ?? []).slice(0, 3);
}

const Positions = suite('mep build + mep call :: the same file:line:col in wasm and in a process');

Positions.before(async () => {
  mkdirSync(join(dir, 'src', 'lib'), { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'positions', private: true, type: 'module' }));
  writeFileSync(join(dir, 'src', 'lib', 'deep.ts'), DEEP);
  writeFileSync(join(dir, 'src', 'extension.ts'), EXTENSION);
  writeFileSync(join(dir, 'ir.json'), JSON.stringify({ formatVersion: 3, distribution: ['Library', [['acme']], [], { modules: [] }] }));
  await buildBothRuntimes(join(dir, 'src', 'extension.ts'), built, dir);
});
Positions.after(() => rmSync(dir, { recursive: true, force: true }));

for (const [how, expected] of Object.entries(EXPECTED)) {
  Positions(`should name ${expected[0]} and its callers in both runtimes :: ${how}`, async () => {
    const wasm = await framesOf(built.wasm, how);
    const processed = await framesOf(built.process, how);
    assert.equal(processed, expected, 'process (Node)');
    assert.equal(wasm, expected, 'wasm');
  });
}

Positions('should print the first frame with its column by default in both runtimes', async () => {
  for (const artifact of [built.wasm, built.process]) {
    const io = captureIo(dir);
    assert.is(await main(['call', artifact, 'generate', '{"target":"positions"}', '--ir', 'ir.json', '--option', 'how=nested'], io), 3);
    assert.ok(io.stderr.some((line) => line.trim() === 'at inner (src/lib/deep.ts:3:22)'), io.stderr.join('\n'));
  }
});

Positions.run();

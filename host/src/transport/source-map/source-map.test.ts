import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { SourceMap as NodeSourceMap } from 'node:module';
import { join } from 'node:path';
import { bundleGuest } from '../../../../build/guest/bundle.ts';
import { REPO_ROOT } from '../../../../build/engine/index.ts';
import { createTimeBudget, parseSourceMap, SourceMapError } from './source-map.ts';

const Decode = suite('source map :: parseSourceMap');

Decode('should agree with Node.js on every mapping of a real esbuild bundle :: the Avro example', async () => {
  const bundle = await bundleGuest({ entry: join(REPO_ROOT, 'examples/avro/extension.ts'), runtime: 'wasm', cwd: REPO_ROOT });
  const json = JSON.parse(bundle.map) as { sources: string[]; mappings: string };
  const ours = parseSourceMap(bundle.map, { budget: createTimeBudget(Infinity) });
  // Node's own decoder (node:module SourceMap, behind --enable-source-maps) is the reference.
  const reference = new NodeSourceMap(json as never);
  const lines = bundle.code.split('\n');
  let checked = 0;
  for (let line = 0; line < lines.length; line += 7) {
    const length = (lines[line] as string).length;
    for (const column of [0, 1, Math.floor(length / 3), Math.floor(length / 2), length - 1]) {
      if (column < 0) continue;
      const mine = ours.lookup(line + 1, column + 1);
      const node = reference.findEntry(line, column) as { generatedLine?: number; originalSource?: string; originalLine?: number; originalColumn?: number };
      // Node falls back to an earlier line's mapping; a line of ours with no mapping has none.
      if (node.generatedLine !== line) continue;
      if (mine === undefined) continue;
      assert.ok(node.originalSource?.endsWith(mine.source), `line ${line + 1} col ${column + 1}: ${node.originalSource} vs ${mine.source}`);
      assert.is(mine.line, (node.originalLine as number) + 1, `line ${line + 1} col ${column + 1}`);
      assert.is(mine.column, (node.originalColumn as number) + 1, `line ${line + 1} col ${column + 1}`);
      checked++;
    }
  }
  assert.ok(checked > 2000, `compared ${checked} positions`);
});

Decode('should give the line without a column when the engine reports lines only', () => {
  // Line 1: col 0 -> a.ts 1:1, col 4 -> a.ts 1:5; line 2: col 2 -> b.ts 3:3.
  const map = parseSourceMap({ version: 3, sources: ['a.ts', 'b.ts'], names: [], mappings: 'AAAA,IAAI;ECEF', ignoreList: [1] });
  assert.equal(map.lookup(1), { source: 'a.ts', line: 1, ignored: false });
  assert.equal(map.lookup(1, 3), { source: 'a.ts', line: 1, column: 1, ignored: false });
  assert.equal(map.lookup(1, 9), { source: 'a.ts', line: 1, column: 5, ignored: false });
  assert.equal(map.lookup(2, 1), { source: 'b.ts', line: 3, column: 3, ignored: true }, 'a column before the first segment belongs to it');
  assert.is(map.lookup(3), undefined);
  assert.is(map.lookup(0), undefined);
});

Decode('should skip segments that map to no source and keep decoding across them', () => {
  // "A" is a one-field segment (generated code with no source).
  const map = parseSourceMap({ version: 3, sources: ['a.ts'], mappings: 'A,CAAA;;AACA' });
  assert.equal(map.lookup(1, 1), { source: 'a.ts', line: 1, column: 1, ignored: false });
  assert.is(map.lookup(2), undefined);
  assert.equal(map.lookup(3, 1), { source: 'a.ts', line: 2, column: 1, ignored: false });
});

Decode('should refuse malformed maps with a SourceMapError :: hostile input', () => {
  const bad: unknown[] = [
    'not json',
    '{"version":2,"sources":[],"mappings":""}',
    { version: 3, sources: ['a'], mappings: 'A!AA' },
    { version: 3, sources: ['a'], mappings: 'AAA' }, // three fields
    { version: 3, sources: ['a'], mappings: 'ACAA' }, // source index 1 of 1 source
    { version: 3, sources: ['a'], mappings: 'AAAg' }, // a continuation bit with nothing after it
    { version: 3, sources: ['a'], mappings: 'AAAAAA' }, // six fields
    { version: 3, sources: 'a', mappings: '' },
  ];
  for (const input of bad) {
    assert.throws(() => parseSourceMap(input), (e: unknown) => e instanceof SourceMapError, JSON.stringify(input));
  }
});

Decode.run();

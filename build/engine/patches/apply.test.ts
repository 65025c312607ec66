/**
 * The edit applier: anchors that match exactly once, regions checked by hash, and a build error
 * naming the edit (and nothing written) when an anchor no longer fits.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { applyPatch, applyQuickjsPatches, findAnchor, regionHash } from './apply.ts';
import type { QuickjsPatch } from './types.ts';

const SOURCE = ['int a;', 'static int f(int x)', '{', '    return x;', '}', '', 'static int g(void)', '{', '    return 1;', '}', 'int a;', ''].join('\n');
const lines = SOURCE.split('\n');
const patch = (at: QuickjsPatch['at'], op: QuickjsPatch['op'], text: string): QuickjsPatch => ({ file: 'quickjs.c', at, op, text, why: 'a test edit: nothing' });
const isBuildError = (e: unknown): boolean => (e as { code?: string }).code === 'ERR_BUILD';

const apply = suite('engine :: edits to QuickJS');

apply('should insert before or after a line, or replace it, comparing lines without their indentation', () => {
  assert.is(applyPatch(SOURCE, patch({ line: 'return x;' }, 'before', '    /* ours */')).split('\n')[3], '    /* ours */');
  assert.is(applyPatch(SOURCE, patch({ line: '  return x;  ' }, 'after', '    x++;\n')).split('\n')[4], '    x++;');
  assert.is(applyPatch(SOURCE, patch({ line: 'return 1;' }, 'replace', '    return 2;')).split('\n')[8], '    return 2;');
});

apply('should replace a function whose text hashes as pinned, and a region between two lines', () => {
  const fn = regionHash(lines.slice(6, 10));
  assert.equal(findAnchor(lines, { fn: 'static int g(', sha256: fn }), { start: 6, end: 10 });
  assert.not.ok(applyPatch(SOURCE, patch({ fn: 'static int g(', sha256: fn }, 'replace', 'static int g(void) { return 3; }')).includes('return 1;'));
  const region = regionHash(lines.slice(2, 5));
  assert.equal(findAnchor(lines, { from: '{', to: '}', near: 'static int f(int x)', sha256: region }), { start: 2, end: 5 });
});

apply('should refuse an anchor that is absent, twice there, changed or too far, saying which', () => {
  assert.match(String(findAnchor(lines, { line: 'int a;' })), /occurs 2 times/);
  assert.match(String(findAnchor(lines, { line: 'int b;' })), /occurs 0 times/);
  assert.match(String(findAnchor(lines, { fn: 'static int g(', sha256: '0000000000000000' })), /changed/);
  assert.match(String(findAnchor(lines, { from: '{', to: '}', sha256: regionHash(lines.slice(2, 5)) })), /occurs 2 times/);
  const far = [...lines.slice(0, 2), ...Array.from({ length: 70 }, () => ''), 'x', ''];
  assert.match(String(findAnchor(far, { line: 'x', near: 'static int f(int x)' })), /within 60 lines/);
  assert.throws(() => applyPatch(SOURCE, patch({ line: 'int a;' }, 'after', 'x')), isBuildError);
});

apply('should write no file when any edit of the list does not fit', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mep-qjs-'));
  try {
    writeFileSync(join(dir, 'quickjs.c'), SOURCE);
    const edits = [patch({ line: 'return 1;' }, 'replace', 'return 2;'), patch({ line: 'absent' }, 'after', 'x')];
    assert.throws(() => applyQuickjsPatches(dir, edits), (e: Error) => isBuildError(e) && /quickjs\.c/.test(e.message) && /QUICKJS_PATCHES/.test(e.message));
    assert.is(readFileSync(join(dir, 'quickjs.c'), 'utf8'), SOURCE);
    applyQuickjsPatches(dir, edits.slice(0, 1));
    assert.ok(readFileSync(join(dir, 'quickjs.c'), 'utf8').includes('return 2;'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

apply.run();

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createLineIndex } from './text-positions.ts';

const Lines = suite('createLineIndex');

Lines('should convert offsets to zero-based positions and back', () => {
  const idx = createLineIndex('ab\ncd\r\n\nef');
  assert.is(idx.lineCount, 4);
  assert.equal(idx.positionAt(0), { line: 0, character: 0 });
  assert.equal(idx.positionAt(4), { line: 1, character: 1 });
  assert.equal(idx.positionAt(8), { line: 3, character: 0 });
  assert.equal(idx.positionAt(99), { line: 3, character: 2 });
  assert.is(idx.offsetAt({ line: 1, character: 1 }), 4);
  assert.is(idx.offsetAt({ line: 1, character: 50 }), 5);
  assert.is(idx.offsetAt({ line: 9, character: 0 }), 10);
  assert.is(idx.line(1), 'cd');
  assert.is(idx.line(7), '');
});

Lines('should read Elm rows and code-point columns as UTF-16 characters', () => {
  const idx = createLineIndex('x\n😀😀b = 1\n');
  // Column 3 is the third code point, `b`: four UTF-16 units in.
  assert.equal(idx.fromElm(2, 3), { line: 1, character: 4 });
  assert.equal(idx.fromElm(1, 1), { line: 0, character: 0 });
  assert.equal(idx.fromElm(99, 1), { line: 2, character: 0 });
  assert.equal(idx.fromElm(1, 99), { line: 0, character: 1 });
});

Lines.run();

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseSourceMap } from './source-map.ts';
import { mapStack } from './stack.ts';

// guest.js line 1 -> src/a.ts 10:3 (col 0) and 10:9 (col 6); line 2 -> node_modules/dep/x.js 4:5 (ignored).
const map = parseSourceMap({ version: 3, file: 'guest.js', sources: ['src/a.ts', 'node_modules/dep/x.js'], mappings: 'AASE,MAAM;ACNJ', ignoreList: [1] });

const Stack = suite('source map :: mapStack');

Stack('should map QuickJS frames by line and name the first frame in the author code :: quickjs 2021', () => {
  const { stack, frames, origin } = mapStack('    at check (guest.js:2)\n    at level3 (guest.js:1)\n    at JSON.parse (native)\n', { map });
  assert.is(stack, '    at check (node_modules/dep/x.js:4)\n    at level3 (src/a.ts:10)\n    at JSON.parse (native)\n');
  assert.equal(frames, [
    { file: 'node_modules/dep/x.js', line: 4, mapped: true, ignored: true, function: 'check' },
    { file: 'src/a.ts', line: 10, mapped: true, ignored: false, function: 'level3' },
  ]);
  assert.equal(origin, frames[1]);
});

Stack('should use a column when the engine reports one :: quickjs-ng and V8', () => {
  const { stack, origin } = mapStack('Error: boom\n    at level3 (guest.js:1:8)\n    at guest.js:1:1', { map });
  assert.is(stack, 'Error: boom\n    at level3 (src/a.ts:10:9)\n    at src/a.ts:10:3');
  assert.equal(origin, { file: 'src/a.ts', line: 10, column: 9, mapped: true, ignored: false, function: 'level3' });
});

Stack("should map V8 frames of a script by file URL and keep Node's own frames :: process", () => {
  const text = [
    'file:///p/dist/guest.js:2',
    '  bundle code',
    '',
    'TypeError: no',
    '    at check (file:///p/dist/guest.js:2:1)',
    '    at new Thing (file:///p/dist/guest.js:1:7)',
    '    at ModuleJob.run (node:internal/modules/esm/module_job:325:25)',
    '    at async Promise.all (index 0)',
  ].join('\n');
  const { stack, frames, origin } = mapStack(text, { map });
  assert.equal(stack.split('\n'), [
    'node_modules/dep/x.js:4',
    '  bundle code',
    '',
    'TypeError: no',
    '    at check (node_modules/dep/x.js:4:5)',
    '    at new Thing (src/a.ts:10:9)',
    '    at ModuleJob.run (node:internal/modules/esm/module_job:325:25)',
    '    at async Promise.all (index 0)',
  ]);
  assert.is(frames.length, 3);
  assert.equal(frames[2], { file: 'node:internal/modules/esm/module_job', line: 325, column: 25, mapped: false, ignored: true, function: 'ModuleJob.run' });
  assert.is(origin?.function, 'new Thing');
});

Stack('should leave frames of other files and lines without a mapping alone', () => {
  const text = '    at f (other.js:1:1)\n    at g (guest.js:99)\nnot a frame: guest.js:1';
  const mapped = mapStack(text, { map });
  assert.is(mapped.stack, text);
  assert.is(mapped.origin, undefined);
  assert.ok(mapped.frames.every((f) => !f.mapped));
});

Stack('should let the caller say which file is the bundle', () => {
  const { origin } = mapStack('    at f (file:///opt/ext/renamed.mjs:1:1)', { map, isBundle: (file) => file.endsWith('/renamed.mjs') });
  assert.equal(origin, { file: 'src/a.ts', line: 10, column: 3, mapped: true, ignored: false, function: 'f' });
});

Stack.run();

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createStderrRecord } from './stderr-record.ts';

const Record = suite('transport :: createStderrRecord');

const fill = (count: number, options?: { head?: number; tail?: number }) => {
  const record = createStderrRecord(options);
  for (let i = 1; i <= count; i++) record.push(`line ${i}`);
  return record;
};

Record('should keep every line while they fit, and say how many it dropped when they do not', () => {
  assert.equal(fill(4, { head: 2, tail: 2 }).lines(), ['line 1', 'line 2', 'line 3', 'line 4']);
  const long = fill(9, { head: 2, tail: 3 });
  assert.equal(long.lines(), ['line 1', 'line 2', '… (4 more lines not kept)', 'line 7', 'line 8', 'line 9']);
  assert.is(long.total, 9);
  assert.equal(fill(6, { head: 2, tail: 3 }).lines()[2], '… (1 more line not kept)');
});

Record('should keep the line Node prints above the stack of a start-up crash, however long the error it prints', () => {
  const record = createStderrRecord();
  for (const line of ['file:///x.mjs:9', '  throw e', '  ^', '', 'MepError: the definition is not valid', '    at f (file:///x.mjs:9:3)', '    at file:///x.mjs:12:1 {']) record.push(line);
  for (let i = 0; i < 200; i++) record.push(`  member${i}: 'value'`);
  for (const line of ['}', '', 'Node.js v20.20.2']) record.push(line);
  assert.ok(record.lines().includes('MepError: the definition is not valid'));
  assert.equal(record.last(3), ['}', '', 'Node.js v20.20.2']);
});

Record('should give the last lines of a short record, and nothing of an empty one', () => {
  assert.equal(fill(2).last(3), ['line 1', 'line 2']);
  assert.equal(createStderrRecord().lines(), []);
  assert.equal(createStderrRecord().last(3), []);
});

Record.run();

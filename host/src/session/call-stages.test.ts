import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { AFTER_PROGRESS, BEFORE_PROGRESS, createStageRecorder, profileLines } from './call-stages.ts';

const Stages = suite('createStageRecorder');

/** A clock the test moves by hand. */
function clock(): { now: () => number; advance: (ms: number) => void } {
  let t = 1000;
  return { now: () => t, advance: (ms) => void (t += ms) };
}

Stages('should time each progress stage from its message to the next, and the parts before and after', () => {
  const c = clock();
  const r = createStageRecorder(c.now);
  r.start();
  c.advance(5);
  r.progress({ requestId: 1, kind: 'begin', message: 'reading' });
  c.advance(30);
  r.progress({ requestId: 1, kind: 'report', message: 'writing', percentage: 50 });
  c.advance(60);
  r.progress({ requestId: 1, kind: 'end' });
  c.advance(5);
  const p = r.finish();
  assert.is(p.totalMs, 100);
  assert.equal(p.stages, [
    { name: BEFORE_PROGRESS, ms: 5 },
    { name: 'reading', ms: 30 },
    { name: 'writing', ms: 60 },
    { name: AFTER_PROGRESS, ms: 5 },
  ]);
  assert.is(p.guestMemoryBytes, undefined);
});

Stages('should add up the stages of repeated calls by name and keep the largest memory', () => {
  const c = clock();
  const r = createStageRecorder(c.now);
  for (const ms of [10, 20]) {
    r.start();
    r.progress({ requestId: 1, kind: 'report', message: 'work' });
    c.advance(ms);
    r.memory(ms * 1024 * 1024);
  }
  const p = r.finish();
  assert.is(p.totalMs, 30);
  assert.equal(p.stages.find((st) => st.name === 'work'), { name: 'work', ms: 30 });
  assert.is(p.guestMemoryBytes, 20 * 1024 * 1024);
});

Stages('should ignore progress outside a call and name a stage without a message by its kind', () => {
  const c = clock();
  const r = createStageRecorder(c.now);
  r.progress({ requestId: 1, kind: 'begin', message: 'early' });
  r.start();
  r.progress({ requestId: 1, kind: 'report' });
  c.advance(7);
  assert.equal(r.finish().stages.map((st) => st.name), [BEFORE_PROGRESS, 'report']);
});

Stages('should print one line per stage and the memory against the limit', () => {
  const lines = profileLines({ totalMs: 200, stages: [{ name: 'a', ms: 150 }, { name: 'b', ms: 50 }], guestMemoryBytes: 64 * 1024 * 1024 }, 256 * 1024 * 1024);
  assert.is(lines.length, 4);
  assert.match(lines[1]!, /150\.0 ms +75%  a$/);
  assert.match(lines[3]!, /64\.0 MiB.*256 MiB.*25 %/);
  assert.is(profileLines({ totalMs: 0, stages: [] }).length, 1);
});

Stages.run();

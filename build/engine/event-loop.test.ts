import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { loadScriptGuest, runScriptInNode } from './testing/script-guest.ts';

// Each export answers with JSON of what it saw; `done(x)` writes it and resolves the handler.
const script = (body: string): string => `globalThis.__mep_exports = {\n${body}\n};`;
const PRELUDE = `const done = (resolve, value) => { Host.outputString(JSON.stringify(value)); resolve(0); };`;

const order = suite('event loop :: ordering (virtual time)');

const ORDER = `${PRELUDE}
globalThis.__mep_exports = {
  order() {
    const out = [];
    return new Promise((resolve) => {
      setTimeout(() => out.push('t10'), 10);
      setTimeout(() => { out.push('t0a'); Promise.resolve().then(() => out.push('micro-in-t0a')); queueMicrotask(() => out.push('qm-in-t0a')); }, 0);
      setTimeout(() => out.push('t-undefined'));
      setTimeout(() => out.push('t-negative'), -5);
      setTimeout(() => out.push('t-nan'), NaN);
      setTimeout(() => out.push('t-huge'), 2 ** 31);
      const iv = setInterval(() => { out.push('iv'); if (out.filter((x) => x === 'iv').length === 3) clearInterval(iv); }, 3);
      queueMicrotask(() => out.push('qm'));
      Promise.resolve().then(() => out.push('p'));
      setTimeout(() => { out.push('t2'); setTimeout(() => out.push('nested+1'), 1); }, 2);
      const cancelled = setTimeout(() => out.push('cancelled'), 4);
      clearTimeout(cancelled);
      setTimeout((a, b) => out.push(a + b), 5, 'ar', 'gs');
      setTimeout(() => done(resolve, out), 20);
      out.push('sync');
    });
  },
  robust() {
    // Timers all made at one instant with distinct delays: Node gives this order under any load.
    const out = [];
    return new Promise((resolve) => {
      setTimeout(() => out.push('c30'), 30);
      setTimeout(() => { out.push('a1'); Promise.resolve().then(() => out.push('a1-micro')); }, 1);
      setTimeout(() => out.push('b0'), 0);
      setTimeout(() => out.push('d-nan'), NaN);
      const t = setTimeout(() => out.push('never'), 15);
      clearTimeout(+t); // a handle's primitive id clears it too
      queueMicrotask(() => out.push('qm'));
      setTimeout(() => done(resolve, out), 60);
    });
  },
};`;

order('should run microtasks before timers, timers by due time then creation order, nested and repeating ones', async () => {
  const g = await loadScriptGuest(ORDER, ['order', 'robust']);
  const r = g.call('order');
  assert.is(r.error, null);
  assert.equal(JSON.parse(r.text), [
    'sync', 'qm', 'p',
    // 0, undefined, negative, NaN and over 2^31-1 ms all become 1 ms (Node), in creation order
    't0a', 'micro-in-t0a', 'qm-in-t0a', 't-undefined', 't-negative', 't-nan', 't-huge',
    't2', 'iv', 'nested+1', 'args', 'iv', 'iv', 't10',
  ]);
});

order('should give the order Node gives for timers made at one instant', async () => {
  const g = await loadScriptGuest(ORDER, ['order', 'robust']);
  const inWasm = g.call('robust').text;
  assert.equal(JSON.parse(inWasm), ['qm', 'a1', 'a1-micro', 'b0', 'd-nan', 'c30']);
  assert.is(inWasm, await runScriptInNode(ORDER, 'robust'));
});

order.run();

const time = suite('event loop :: virtual and granted time');

const TIME = script(`
  sleep() {
    const start = Date.now();
    return new Promise((resolve) => setTimeout(() => { Host.outputString(JSON.stringify([start, Date.now(), performance.now(), new Date().toISOString()])); resolve(0); }, 3_600_000));
  },
  quiet() { return new Promise((resolve) => setTimeout(() => { Host.outputString('ok'); resolve(0); }, 50)); },
  real() {
    const start = Date.now();
    return new Promise((resolve) => setTimeout(() => { Host.outputString(JSON.stringify([start, Date.now()])); resolve(0); }, 30));
  },
  random() { Host.outputString(JSON.stringify([Math.random(), Math.random()])); return 0; },
  timing() {
    const t0 = Date.now(), p0 = performance.now(), d0 = new Date();
    console.time('t');
    return new Promise((resolve) => setTimeout(() => {
      console.timeEnd('t');
      Host.outputString(JSON.stringify([Date.now() - t0, performance.now() - p0, new Date() - d0, new Date(0).getUTCFullYear() === 1970]));
      resolve(0);
    }, 5));
  },
`);

const Y2K = Date.UTC(2000, 0, 1);

time('should sleep an hour of virtual time at once, from 2000-01-01 in every call, with one warning per instance naming the grant', async () => {
  const g = await loadScriptGuest(TIME, ['sleep', 'quiet', 'real', 'random', 'timing']);
  for (let i = 0; i < 2; i++) {
    const r = g.call('sleep');
    assert.equal(JSON.parse(r.text), [Y2K, Y2K + 3_600_000, 3_600_000, '2000-01-01T01:00:00.000Z']);
    const warnings = r.logs.filter((l) => l.level === 'warn');
    assert.is(warnings.length, i === 0 ? 1 : 0, 'one warning per instance');
    if (i === 0) assert.match(warnings[0]!.text, /permissions.*clock.*SOURCE_DATE_EPOCH/);
  }
});

time("should start every call at the host's SOURCE_DATE_EPOCH", async () => {
  const g = await loadScriptGuest(TIME, ['sleep', 'quiet', 'real', 'random', 'timing'], { config: { SOURCE_DATE_EPOCH: '1700000000' } });
  assert.equal(JSON.parse(g.call('sleep').text), [1_700_000_000_000, 1_700_003_600_000, 3_600_000, '2023-11-14T23:13:20.000Z']);
  const bad = await loadScriptGuest(TIME, ['sleep', 'quiet', 'real', 'random', 'timing'], { config: { SOURCE_DATE_EPOCH: '17e8' } });
  const r = bad.call('sleep');
  assert.is(JSON.parse(r.text)[0], Y2K);
  assert.ok(r.logs.some((l) => l.level === 'warn' && /SOURCE_DATE_EPOCH is not/.test(l.text)));
});

time('should not warn a guest that only times itself', async () => {
  const g = await loadScriptGuest(TIME, ['sleep', 'quiet', 'real', 'random', 'timing']);
  for (let i = 0; i < 2; i++) {
    const r = g.call('timing');
    assert.equal(JSON.parse(r.text), [5, 5, 5, true]);
    assert.equal(r.logs.filter((l) => l.level === 'warn'), []);
  }
});

time('should not warn a guest that only uses timers', async () => {
  const g = await loadScriptGuest(TIME, ['sleep', 'quiet', 'real', 'random']);
  const r = g.call('quiet');
  assert.is(r.text, 'ok');
  assert.equal(r.logs.filter((l) => l.level === 'warn'), []);
});

time('should wait in real time with a granted clock, without warning', async () => {
  let now = 1_000_000;
  // The stub's clock moves 1 ms per read, so the loop's wait ends after 30 reads.
  const g = await loadScriptGuest(TIME, ['sleep', 'quiet', 'real', 'random'], { clockMs: () => now++ });
  const r = g.call('real');
  const [start, end] = JSON.parse(r.text) as [number, number];
  assert.ok(start >= 1_000_000 && end - start >= 30, `${start} → ${end}`);
  assert.equal(r.logs.filter((l) => l.level === 'warn'), []);
});

time('should repeat Math.random in every call without the grant, and warn once per call', async () => {
  const g = await loadScriptGuest(TIME, ['sleep', 'quiet', 'real', 'random']);
  const a = g.call('random');
  const b = g.call('random');
  assert.is(a.text, b.text);
  assert.is(a.logs.filter((l) => l.level === 'warn' && /permissions.*random/.test(l.text)).length, 1);
  const granted = await loadScriptGuest(TIME, ['sleep', 'quiet', 'real', 'random'], { random: true });
  const c = granted.call('random');
  assert.is.not(c.text, granted.call('random').text);
  assert.equal(c.logs.filter((l) => l.level === 'warn'), []);
});

time.run();

const ending = suite('event loop :: how a call ends');

const ENDING = script(`
  leave() { setTimeout(() => Host.outputString('late'), 5); setInterval(() => {}, 1); Host.outputString('answer'); return 0; },
  count() { Host.outputString(String(globalThis.fired || 0)); return 0; },
  arm() { setTimeout(() => { globalThis.fired = (globalThis.fired || 0) + 1; }, 1); return Promise.resolve(0); },
  never() { return new Promise(() => {}); },
  forever() { setInterval(() => {}, 1); return new Promise(() => {}); },
  throwing() {
    return new Promise((resolve) => {
      setTimeout(() => { throw new TypeError('in a timer'); }, 1);
      queueMicrotask(() => { throw new RangeError('in a microtask'); });
      setTimeout(() => { Host.outputString('went on'); resolve(0); }, 2);
    });
  },
  badArgs() {
    const names = [];
    for (const f of [() => setTimeout('code', 1), () => setInterval(null, 1), () => queueMicrotask(1)]) {
      try { f(); } catch (e) { names.push(e.name + ':' + e.code); }
    }
    Host.outputString(JSON.stringify(names));
    return 0;
  },
`);

ending('should drop timers still pending when the answer is ready, with a debug log, so the next call starts with none', async () => {
  const g = await loadScriptGuest(ENDING, ['leave', 'count', 'arm', 'never', 'forever', 'throwing', 'badArgs']);
  const r = g.call('leave');
  assert.is(r.text, 'answer');
  assert.ok(r.logs.some((l) => l.level === 'debug' && /^2 timers were still pending/.test(l.text)), JSON.stringify(r.logs));
  // A timer armed by a handler that settled at once never fires, in this call or a later one.
  g.call('arm');
  g.call('arm');
  assert.is(g.call('count').text, '0');
});

ending('should fail a promise that nothing can settle, with the instance still usable', async () => {
  const g = await loadScriptGuest(ENDING, ['leave', 'count', 'arm', 'never', 'forever', 'throwing', 'badArgs']);
  const r = g.call('never');
  assert.is(r.rc, 1);
  assert.match(r.error ?? '', /^InternalError: the exported function returned a promise that never settled/);
  assert.is(g.call('count').text, '0');
});

ending('should stop an interval that never ends when the host interrupts the call', async () => {
  let polls = 0;
  const g = await loadScriptGuest(ENDING, ['leave', 'count', 'arm', 'never', 'forever', 'throwing', 'badArgs'], { interrupt: () => ++polls > 50 });
  const r = g.call('forever');
  assert.is(r.rc, 1);
  assert.match(r.error ?? '', /^InternalError: interrupted/);
});

ending('should report a timer or microtask that throws and go on', async () => {
  const g = await loadScriptGuest(ENDING, ['leave', 'count', 'arm', 'never', 'forever', 'throwing', 'badArgs']);
  const r = g.call('throwing');
  assert.is(r.text, 'went on');
  const errors = r.logs.filter((l) => l.level === 'error').map((l) => l.text.split('\n')[0]);
  assert.equal(errors, ['Uncaught RangeError: in a microtask', 'Uncaught TypeError: in a timer']);
});

ending('should refuse a callback that is not a function, as Node does', async () => {
  const g = await loadScriptGuest(ENDING, ['leave', 'count', 'arm', 'never', 'forever', 'throwing', 'badArgs']);
  const expected = await runScriptInNode(ENDING, 'badArgs');
  assert.is(g.call('badArgs').text, expected);
  assert.equal(JSON.parse(expected), ['TypeError:ERR_INVALID_ARG_TYPE', 'TypeError:ERR_INVALID_ARG_TYPE', 'TypeError:ERR_INVALID_ARG_TYPE']);
});

ending.run();

const rejections = suite('event loop :: unhandled promise rejections');

const REJECTIONS = script(`
  unhandled() {
    Promise.reject(new TypeError('nobody handles this'));
    (async () => { throw new RangeError('an async function threw'); })();
    Promise.reject(2).catch(() => {});
    const later = Promise.reject('handled in a timer');
    return new Promise((resolve) => setTimeout(() => { later.catch(() => {}); Promise.reject({ code: 7 }); setTimeout(() => resolve(0), 1); }, 1));
  },
  quiet() { Host.outputString('quiet'); return 0; },
  leaves() { Promise.reject(new Error('left behind')); Host.outputString('answered'); return 0; },
  rejects() { return Promise.reject(new SyntaxError('the answer itself')); },
  many() {
    const all = Array.from({ length: 50000 }, (_, i) => (async () => { if (i % 2) throw new Error('odd ' + i); return i; })());
    return Promise.allSettled(all).then((r) => { Host.outputString(String(r.filter((x) => x.status === 'rejected').length)); return 0; });
  },
`);
const warnings = (logs: { level: string; text: string }[]): string[] => logs.filter((l) => l.level === 'warn').map((l) => l.text.split('\n')[0]!);

rejections('should log each rejection nothing handled once the microtasks ran out, and go on :: hostile', async () => {
  const g = await loadScriptGuest(REJECTIONS, ['unhandled', 'quiet', 'leaves', 'rejects', 'many']);
  const r = g.call('unhandled');
  assert.is(r.error, null);
  assert.equal(warnings(r.logs), [
    'Unhandled promise rejection: TypeError: nobody handles this',
    'Unhandled promise rejection: RangeError: an async function threw',
    'Unhandled promise rejection: handled in a timer',
    'Unhandled promise rejection: { code: 7 }',
  ]);
  assert.ok(r.logs.some((l) => l.level === 'warn' && /\n\s+at /.test(l.text)), 'an error is logged with its stack');
  assert.equal(warnings(g.call('quiet').logs), [], 'nothing is carried into the next call');
});

rejections("should log a rejection a handler left behind in that call, and fail a call whose answer rejected without a warning", async () => {
  const g = await loadScriptGuest(REJECTIONS, ['unhandled', 'quiet', 'leaves', 'rejects', 'many']);
  const left = g.call('leaves');
  assert.is(left.text, 'answered');
  assert.equal(warnings(left.logs), ['Unhandled promise rejection: Error: left behind']);
  const rejected = g.call('rejects');
  assert.is(rejected.rc, 1);
  assert.match(rejected.error ?? '', /^SyntaxError: the answer itself/);
  assert.equal(warnings(rejected.logs), []);
});

rejections('should keep no false alarm for many rejections handled together', async () => {
  const g = await loadScriptGuest(REJECTIONS, ['unhandled', 'quiet', 'leaves', 'rejects', 'many']);
  const r = g.call('many');
  assert.is(r.text, '25000');
  assert.equal(warnings(r.logs), []);
});

rejections("should refuse a module whose top level leaves a rejection unhandled, as Node ends such a process", async () => {
  try {
    await loadScriptGuest(`Promise.reject(new Error('at the top')); globalThis.__mep_exports = { run() { return 0; } };`, ['run']);
    assert.unreachable('the module loaded');
  } catch (error) {
    assert.match(String(error), /top level left a promise rejection unhandled \(Error: at the top\)/);
  }
  // Handled before the top level ends: fine.
  const ok = await loadScriptGuest(`const p = Promise.reject(1); p.catch(() => {}); globalThis.__mep_exports = { run() { Host.outputString('ok'); return 0; } };`, ['run']);
  assert.is(ok.call('run').text, 'ok');
});

rejections.run();

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { format } from 'node:util';
import { loadScriptGuest, runScriptInNode } from './testing/script-guest.ts';

// Every probe runs in the sandbox and in Node (V8 and Node's own built-ins) and must agree.
const PROBES: Record<string, string> = {
  url: `
    const cases = [
      ['http://example.com'], ['HTTPS://User:Pa%20ss@EXAMPLE.com:443/a/./b/../c?x=1 2&y=\\'#frag ment'], ['http://example.com:8080/p?q#h'],
      ['//foo/bar', 'https://base.org/x'], ['../up?q', 'http://h/a/b/c'], ['?only', 'http://h/p?old#f'], ['#only', 'http://h/p?q'],
      ['http://[::1]:80/'], ['http://[2001:db8:0:0:0:0:2:1]/'], ['http://[::ffff:192.168.0.1]/'], ['http://0x7f.1/'], ['http://192.168.257/'], ['http://1.2.3.4.5/'],
      ['http://ex%41mple.com/'], ['http://bücher.de/'], ['http://ＥＸＡＭＰＬＥ.com/'], ['http://a b/'], ['http://[::1/'], ['http://h:99999/'], ['http:'],
      ['file:///C:/dir/../x.txt'], ['file://localhost/etc/passwd'], ['file:c:\\\\windows\\\\..\\\\x'], ['file://host/share/f'], ['../../x', 'file:///a/b/c'],
      ['mailto:someone@example.com?subject=hi'], ['urn:isbn:0451450523'], ['data:text/plain,hello world'], ['javascript:alert(1)'], ['blob:https://a.b/uuid'],
      ['git+ssh://git@github.com/o/r.git#v1'], ['foo://h/p/%2e%2E/q'], ['http://h/%2e/a/%2E%2e/b'], ['http://h/a?b=%zz&c=é'], ['ws://h:80/'], ['wss://h:443/x'],
      ['ftp://h:21/'], ['http://h\\\\path\\\\x'], ['not a url'], ['', 'http://h/p'], ['  http://trim.me/  '], ['http://h/😀?😀#😀'], ['non-special://h/..//p'],
    ];
    const keys = ['href', 'origin', 'protocol', 'username', 'password', 'host', 'hostname', 'port', 'pathname', 'search', 'hash'];
    const out = cases.map(([u, b]) => { try { const x = new URL(u, b); return keys.map((k) => x[k]); } catch (e) { return [e.name, e.code]; } });
    const u = new URL('http://h/p?a=1&b=2&a=3');
    u.searchParams.append('c', 'x y'); u.searchParams.delete('b'); u.hash = 'frag'; u.pathname = '/new path'; u.port = '8080'; u.search = '?z=1';
    out.push(u.href, URL.canParse('x:'), URL.canParse('nope'), String(new URL('http://h/a').searchParams));
    const v = new URL('https://a.b/x'); v.protocol = 'http'; v.host = 'c.d:81'; v.username = 'me@'; v.password = 'p:w';
    out.push(v.href, JSON.stringify(v), v.searchParams.size);
    const sp = new URLSearchParams('?a=1&b=%20x+y&a=2&=empty&c');
    sp.sort();
    out.push(sp.toString(), sp.getAll('a'), sp.get('b'), sp.has('c'), sp.get('zz'), [...sp.keys()], sp.size);
    out.push(new URLSearchParams({ 'q r': 'ü&=', n: 1 }).toString(), new URLSearchParams([['a', 'b']]).toString());
    return out;`,
  clone: `
    const a = { n: 1, s: 'x', d: new Date(86400000), r: /a+/gi, m: new Map([[1, { k: 'v' }]]), set: new Set([1, 'two']), u8: new Uint8Array([1, 2, 3]), big: 10n, nested: { arr: [1, , 3] } };
    a.self = a; a.m.set('back', a);
    const c = structuredClone(a);
    const out = [c !== a, c.self === c, c.m.get('back') === c, c.d.getTime(), c.r.source + c.r.flags, [...c.set], Array.from(c.u8), typeof c.big, 1 in c.nested.arr, c.nested.arr.length, c.m.get(1).k];
    class K { constructor() { this.x = 1; } }
    const k = structuredClone(new K());
    out.push(Object.getPrototypeOf(k) === Object.prototype, k.x);
    const e = structuredClone(new RangeError('bad', { cause: 'why' }));
    out.push(e instanceof RangeError, e.message);
    for (const bad of [() => {}, Symbol('s'), { f() {} }, new WeakMap(), Promise.resolve()]) {
      try { structuredClone(bad); out.push('cloned'); } catch (err) { out.push(err.name, err instanceof DOMException, err.code); }
    }
    const buf = new Uint8Array([9, 8]).buffer; const twice = structuredClone({ a: new Uint8Array(buf), b: new Uint8Array(buf) });
    out.push(twice.a.buffer === twice.b.buffer);
    return out;`,
  text: `
    const enc = new TextEncoder(); const dec = new TextDecoder();
    const hex = (b) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join(' ');
    const out = [enc.encoding, hex(enc.encode('aé€😀')), hex(enc.encode('\\ud800x\\udc00')), hex(enc.encode())];
    const bad = [[0xc3], [0xe2, 0x82], [0xf0, 0x9f, 0x98], [0x80], [0xff, 0x61], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xe2, 0x28, 0xa1], [0xef, 0xbb, 0xbf, 0x61]];
    for (const b of bad) out.push(dec.decode(new Uint8Array(b)));
    try { new TextDecoder('utf-8', { fatal: true }).decode(new Uint8Array([0x61, 0xff])); out.push('no throw'); } catch (e) { out.push(e.name, e.code); }
    out.push(new TextDecoder('utf-8', { ignoreBOM: true }).decode(new Uint8Array([0xef, 0xbb, 0xbf, 0x62])).length);
    const s = new TextDecoder(); const euro = enc.encode('€😀');
    out.push(s.decode(euro.subarray(0, 1), { stream: true }) + s.decode(euro.subarray(1, 5), { stream: true }) + s.decode(euro.subarray(5)));
    out.push(new TextDecoder('utf-16le').decode(new Uint8Array([0x61, 0, 0x3d, 0xd8, 0, 0xde])));
    const dest = new Uint8Array(5); out.push(enc.encodeInto('a€b', dest), hex(dest));
    const dest2 = new Uint8Array(3); out.push(enc.encodeInto('😀x', dest2));
    out.push(new TextDecoder('UTF8').encoding, new TextDecoder().decode(new Uint8Array([0x41]).buffer));
    try { new TextDecoder('x-no-such-encoding'); } catch (e) { out.push(e.name); }
    return out;`,
  base64: `
    const out = [btoa('hello'), btoa(''), btoa('\\xff\\xfe'), atob('aGVsbG8='), atob(' aGVs bG8 '), atob('aGVsbG8'), atob('')];
    for (const f of [() => btoa('€'), () => atob('a'), () => atob('a$=='), () => atob('aGVsbG8==x')]) { try { f(); out.push('no throw'); } catch (e) { out.push(e.name, e.code); } }
    return out;`,
  events: `
    const out = [];
    const t = new EventTarget();
    const once = () => out.push('once');
    t.addEventListener('x', once, { once: true });
    t.addEventListener('x', { handleEvent: (e) => out.push('obj:' + e.type + ':' + (e.target === t)) });
    t.addEventListener('x', (e) => { out.push('stop'); e.stopImmediatePropagation(); });
    t.addEventListener('x', () => out.push('never'));
    t.dispatchEvent(new Event('x')); t.dispatchEvent(new Event('x'));
    const ev = new Event('y', { cancelable: true }); t.addEventListener('y', (e) => e.preventDefault());
    out.push(t.dispatchEvent(ev), ev.defaultPrevented);
    const ac = new AbortController();
    ac.signal.addEventListener('abort', () => out.push('aborted:' + ac.signal.reason.name));
    ac.signal.onabort = () => out.push('onabort');
    out.push(ac.signal.aborted); ac.abort(); ac.abort(); out.push(ac.signal.aborted, ac.signal.reason instanceof DOMException, ac.signal.reason.code);
    try { ac.signal.throwIfAborted(); } catch (e) { out.push('threw ' + e.name); }
    const r = AbortSignal.abort('why'); out.push(r.aborted, r.reason);
    const any = AbortSignal.any([new AbortController().signal, r]); out.push(any.aborted, any.reason);
    const d = new DOMException('m', 'NotFoundError'); out.push(d.name, d.message, d.code, d instanceof Error, Object.keys(d).length, String(d));
    // Node does not wait for AbortSignal.timeout's timer (it is unref'd): a second timer keeps it alive.
    const keep = setTimeout(() => {}, 1000);
    return new Promise((resolve) => { const s = AbortSignal.timeout(10); s.onabort = () => { out.push(s.reason.name); clearTimeout(keep); resolve(out); }; });`,
  locale: `
    const nums = [1234.5, 1.0005, 2.5, 0.0005, -0, 1e21, NaN, Infinity, -Infinity, -1234.5678, 0.1 + 0.2, 123456789012.3456, 1.9995, 9.9999, 999.9995, 5e-7];
    const out = nums.map((n) => n.toLocaleString());
    out.push((1234.5).toLocaleString('en-US'), (12345678901234567890n).toLocaleString(), [1234, 'a', null, 5.5].toLocaleString());
    const d = new Date(Date.UTC(2024, 0, 2, 15, 4, 5));
    out.push(d.toLocaleString(), d.toLocaleDateString(), d.toLocaleTimeString(), new Date(Date.UTC(2024, 11, 31, 0, 0, 0)).toLocaleString('en'), new Date(NaN).toLocaleString());
    out.push(['b', 'a', 'B', 'A', '_a', 'a1', 'a10', 'a2', 'z', 'Zed', 'zed', 'a-b', 'a b', 'ab', '10', '9', '$x', '~y'].sort((x, y) => x.localeCompare(y)));
    out.push('i'.toLocaleUpperCase(), 'I'.toLocaleLowerCase('en-US'));
    return out;`,
  localeShape: `
    const methods = [[Number.prototype, 'toLocaleString'], [BigInt.prototype, 'toLocaleString'], [Date.prototype, 'toLocaleString'], [Date.prototype, 'toLocaleDateString'], [Date.prototype, 'toLocaleTimeString'],
      [String.prototype, 'localeCompare'], [String.prototype, 'toLocaleUpperCase'], [String.prototype, 'toLocaleLowerCase'], [Array.prototype, 'toLocaleString']];
    const constructible = (f) => { try { Reflect.construct(function () {}, [], f); return true; } catch { return false; } };
    const out = methods.map(([proto, name]) => { const f = proto[name]; const d = Object.getOwnPropertyDescriptor(proto, name); return [f.name, f.length, 'prototype' in f, constructible(f), d.enumerable, d.writable, d.configurable]; });
    const thrown = (f) => { try { f(); return 'no throw'; } catch (e) { return e.name; } };
    out.push([() => String.prototype.localeCompare.call(undefined, 'a'), () => String.prototype.localeCompare.call(null), () => String.prototype.toLocaleUpperCase.call(undefined), () => Number.prototype.toLocaleString.call('1'),
      () => BigInt.prototype.toLocaleString.call(1), () => Date.prototype.toLocaleString.call({}), () => Array.prototype.toLocaleString.call(null), () => new String.prototype.localeCompare('a')].map(thrown));
    const pairs = [['o\u0308', '\u00f6'], ['\u00c5', 'A\u030a'], ['x\u031b\u0323', 'x\u0323\u031b'], ['\u1ef1', 'u\u031b\u0323'], ['\u00c7', 'C\u0327'], ['\u2126', '\u03a9']];
    out.push(pairs.map(([a, b]) => a.localeCompare(b)), ['a', 'u', 'undefined', 'zz'].map((s) => [s.localeCompare(), s.localeCompare(undefined) === s.localeCompare('undefined')]));
    out.push(String.prototype.localeCompare.call(12, '3'), [true, null, undefined, 1234].toLocaleString(), Array.prototype.toLocaleString.call({ length: 2, 0: 'x', 1: 7 }));
    return out;`,
  misc: `
    const out = [typeof Intl, typeof setImmediate, typeof fetch, typeof queueMicrotask, typeof structuredClone, typeof performance.now(), typeof setTimeout(() => {}, 1).unref];
    const t = setTimeout(() => {}, 1); out.push(typeof +t, t.hasRef(), t.unref().hasRef(), t.ref().hasRef()); clearTimeout(t);
    return out;`,
};

const script = `globalThis.__mep_exports = {\n${Object.entries(PROBES)
  .map(([name, body]) => `  ${name}() { return Promise.resolve((() => {${body}\n})()).then((v) => { Host.outputString(JSON.stringify(v)); return 0; }); },`)
  .join('\n')}\n};`;

const parity = suite('guest globals :: the same as Node');

for (const name of Object.keys(PROBES)) {
  parity(`should give Node's answers :: ${name}`, async () => {
    const g = await loadScriptGuest(script, Object.keys(PROBES));
    const r = g.call(name);
    assert.is(r.error, null);
    const inNode = JSON.parse(await runScriptInNode(script, name));
    if (name === 'misc') {
      // Node has setImmediate and fetch; the sandbox has neither (and Intl only in Node).
      assert.equal(JSON.parse(r.text), ['undefined', 'undefined', 'undefined', ...inNode.slice(3)]);
      return;
    }
    assert.equal(JSON.parse(r.text), inNode);
  });
}

parity.run();

const refusals = suite('guest globals :: what the sandbox refuses, clearly');

refusals('should throw for other locales and options instead of answering in en-US :: hostile', async () => {
  const src = `globalThis.__mep_exports = { run() {
    const out = [];
    for (const f of [() => (1234.5).toLocaleString('de-DE'), () => (1).toLocaleString(undefined, { style: 'percent' }), () => new Date(0).toLocaleString('fr'), () => 'a'.localeCompare('b', 'sv'), () => 'i'.toLocaleUpperCase('tr'), () => [1.5].toLocaleString('de')]) {
      try { out.push(f()); } catch (e) { out.push(e.name); }
    }
    // Without Intl, ECMA-262 calls each element's toLocaleString without arguments.
    out.push([{ toLocaleString(...args) { return args.length; } }, undefined].toLocaleString('ar', {}));
    Host.outputString(JSON.stringify(out)); return 0; } };`;
  const g = await loadScriptGuest(src, ['run']);
  assert.equal(JSON.parse(g.call('run').text), ['RangeError', 'RangeError', 'RangeError', 'RangeError', 'RangeError', 'RangeError', '0,']);
});

refusals('should refuse crypto without the randomness grant, naming it, and give UUIDs with it', async () => {
  const src = `globalThis.__mep_exports = { run() {
    let out;
    try { out = [crypto.randomUUID(), Array.from(crypto.getRandomValues(new Uint32Array(4)))]; } catch (e) { out = [e.name, e.message]; }
    Host.outputString(JSON.stringify(out)); return 0; } };`;
  const denied = JSON.parse((await loadScriptGuest(src, ['run'])).call('run').text) as string[];
  assert.is(denied[0], 'NotAllowedError');
  assert.match(denied[1]!, /permissions.*random/);
  const granted = JSON.parse((await loadScriptGuest(src, ['run'], { random: true })).call('run').text) as [string, number[]];
  assert.match(granted[0], /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.is(granted[1].length, 4);
});

refusals.run();

const consoles = suite('guest globals :: console');

const LOGGED: unknown[][] = [
  ['plain', 1, true, null, undefined, 12n, Symbol.for('s')],
  ['%s is %d years and %i, %f, %j %o %%', 'Bob', 42.5, '7.9', '1.5', { a: [1] }, 'str'],
  [{ a: 1, 'b-c': 'two', nested: { deep: { deeper: { deepest: 1 } } }, arr: [1, 'x', [2, [3, [4]]]] }],
  [[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27]],
  [['apple', 'banana', 'cherry', 'dragonfruit', 'elderberry', 'fig', 'grape', 'honeydew']],
  [new Map([['k', { v: 1 }]]), new Set([1, 'a']), [], {}, new Map(), [undefined, null, , 3]],
  [{ longKeyNumberOne: 'a fairly long string value', longKeyNumberTwo: 'another long string value', k3: 3 }],
  [new Date(0), /re/g, -0, [-0], 'quote\'s', ["it's \"quoted\""], new Uint8Array([1, 2]), Object.create(null)],
];
// Functions as source text (the test's own would carry the transpiler's edits).
const FUNCTIONS = ['function named() {}', '() => {}', 'class Klass {}', 'async function af() {}', 'function* gen() {}'];

consoles('should format arguments as Node\'s util.format does', async () => {
  // The values travel as source text, evaluated in the guest and (indirect eval) in Node.
  const sources = [...LOGGED.map((args) => args.map(toSource)), FUNCTIONS];
  const src = `globalThis.__mep_exports = { run() {
    const cases = ${JSON.stringify(sources)};
    for (const c of cases) console.log(...c.map((s) => (0, eval)('(' + s + ')')));
    return 0; } };`;
  const r = (await loadScriptGuest(src, ['run'])).call('run');
  assert.is(r.error, null);
  assert.equal(r.logs.map((l) => l.text), sources.map((args) => format(...args.map((a) => (0, eval)(`(${a})`)))));
});

consoles('should map every method to a log level, with groups, counts, timers and asserts', async () => {
  const src = `globalThis.__mep_exports = { run() {
    console.debug('d'); console.info('i'); console.warn('w'); console.error('e'); console.dir({ a: 1 });
    console.group('G'); console.log('inside'); console.groupEnd(); console.log('outside');
    console.count(); console.count(); console.count('x'); console.countReset(); console.count();
    console.assert(true, 'no'); console.assert(false, 'yes %d', 1);
    console.time('t'); return new Promise((resolve) => setTimeout(() => { console.timeEnd('t'); console.trace('here'); console.table([{ a: 1, b: 'x' }, { a: 2 }]); resolve(0); }, 25)); } };`;
  const r = (await loadScriptGuest(src, ['run'])).call('run');
  const lines = r.logs.filter((l) => !/reads the clock/.test(l.text)).map((l) => `${l.level} ${l.text.split('\n')[0]}`);
  assert.equal(lines, [
    'debug d', 'info i', 'warn w', 'error e', 'info { a: 1 }', 'info G', 'info   inside', 'info outside',
    'info default: 1', 'info default: 2', 'info x: 1', 'info default: 1', 'warn Assertion failed: yes 1',
    'info t: 25ms', 'debug Trace: here', 'info ┌─────────┬───┬─────┐',
  ]);
  const table = r.logs.at(-1)!.text;
  assert.is(table, ['┌─────────┬───┬─────┐', '│ (index) │ a │  b  │', '├─────────┼───┼─────┤', "│    0    │ 1 │ 'x' │", '│    1    │ 2 │     │', '└─────────┴───┴─────┘'].join('\n'));
});

consoles.run();

function toSource(v: unknown): string {
  if (typeof v === 'bigint') return `${v}n`;
  if (typeof v === 'symbol') return `Symbol.for(${JSON.stringify(v.description)})`;
  if (v === undefined) return 'undefined';
  if (typeof v === 'number') return Object.is(v, -0) ? '-0' : String(v);
  if (typeof v === 'function') return v.toString();
  if (v instanceof Date) return `new Date(${v.getTime()})`;
  if (v instanceof RegExp) return String(v);
  if (v instanceof Map) return `new Map([${[...v].map(([k, x]) => `[${toSource(k)}, ${toSource(x)}]`).join(', ')}])`;
  if (v instanceof Set) return `new Set([${[...v].map(toSource).join(', ')}])`;
  if (v instanceof Uint8Array) return `new Uint8Array([${[...v].join(', ')}])`;
  if (Array.isArray(v)) return `[${Array.from({ length: v.length }, (_, i) => (i in v ? toSource(v[i]) : '')).join(', ')}${v.length > 0 && !(v.length - 1 in v) ? ',' : ''}]`;
  if (v !== null && typeof v === 'object') {
    if (Object.getPrototypeOf(v) === null) return 'Object.create(null)';
    return `{ ${Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}: ${toSource(x)}`).join(', ')} }`;
  }
  return JSON.stringify(v);
}

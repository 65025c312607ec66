// A guest that rewrites built-ins (issue 33): the PDK and the engine's glue take what they use
// before the extension's code runs (./primordials.ts, build/engine/glue/prelude.js), so the
// answer stays a well-formed JSON-RPC answer with the handler's result, in wasm and as a process,
// and the PDK's own promise work is not seen by a guest counting `then` calls.
import { format } from 'node:util';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { rmSync } from 'node:fs';
import { buildSourceBothRuntimes } from '../../build/guest/testing/build-both.ts';
import { openTransport, specFromPath } from '../../host/src/registry/launch.ts';
import { createSession } from '../../host/src/session/session.ts';

/** What the guest logs after a rewrite, each call with Node's util.format of the same arguments expected. */
const LOGS: { method: string; level: string; args: unknown[] }[] = [
  { method: 'log', level: 'info', args: ['%s has %d items: %O, %j', 'list', 3, { a: [1, 'x'] }, { k: ['v', 2] }] },
  { method: 'warn', level: 'warn', args: [{ nested: { deep: { deeper: { deepest: 1 } } }, s: "it's", 'a key': [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] }, 'tail\nline'] },
  { method: 'info', level: 'info', args: [new Map([[1, { b: 'two' }]]), new Set(['x']), [undefined, null, -0, 10n], 'a\tb'] },
];
// Made before any rewrite (new Map calls Map.prototype.set, array literals spread nothing) and
// logged with Reflect.apply, so only the runtime's own work meets the rewritten built-ins.
const LOGGED = `[${LOGS.map((l) => `{ method: ${JSON.stringify(l.method)}, args: ${source(l.args)} }`).join(', ')}]`;
const URL_INPUT = '../b c/./d?q=1 2&r=\u00e4#frag';
const URL_BASE = 'https://User:pw@EXAMPLE.com:443/x/y/z';

/** JavaScript source for the values LOGS uses. */
function source(v: unknown): string {
  if (v instanceof Map) return `new Map(${source([...v])})`;
  if (v instanceof Set) return `new Set(${source([...v])})`;
  if (typeof v === 'bigint') return `${v}n`;
  if (v === undefined) return 'undefined';
  if (Object.is(v, -0)) return '-0';
  if (Array.isArray(v)) return `[${v.map(source).join(', ')}]`;
  if (v !== null && typeof v === 'object') return `{ ${Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}: ${source(x)}`).join(', ')} }`;
  return JSON.stringify(v);
}

const SOURCE = `import { defineExtension, textArtifact } from 'mep-runtime/guest-pdk';

const seen = { then: 0, resolve: 0, clear: 0 };
// The guest's own console and URL, taken before any rewrite (one rewrite replaces console itself).
const guestConsole = console;
const GuestURL = URL;
const apply = Reflect.apply;
const logCalls = ${LOGGED};
const rewrites = {
  'JSON replaced': () => { globalThis.JSON = { stringify() { throw new Error('JSON.stringify hijacked'); }, parse() { throw new Error('JSON.parse hijacked'); } }; },
  'JSON deleted': () => { delete globalThis.JSON; },
  'JSON.stringify replaced': () => { JSON.stringify = () => '"hijacked"'; },
  'String replaced': () => { globalThis.String = function () { throw new Error('String hijacked'); }; },
  'Promise.resolve replaced': () => { Promise.resolve = () => { throw new Error('Promise.resolve hijacked'); }; },
  'Array iterator replaced': () => { Array.prototype[Symbol.iterator] = function* () { throw new Error('iterator hijacked'); }; },
  'Array.prototype.push replaced': () => { Array.prototype.push = () => { throw new Error('push hijacked'); }; },
  'Object.prototype.then added': () => { Object.prototype.then = function (resolve) { resolve('hijacked'); }; },
  'Map.prototype.set replaced': () => { Map.prototype.set = () => { throw new Error('Map.set hijacked'); }; },
  'Array.prototype.map replaced': () => { Array.prototype.map = () => ['hijacked']; },
  'Array.prototype.join replaced': () => { Array.prototype.join = () => 'hijacked'; },
  'String.prototype.replace replaced': () => { String.prototype.replace = () => 'hijacked'; },
  'String.prototype.split replaced': () => { String.prototype.split = () => ['hijacked']; },
  'Object.keys replaced': () => { Object.keys = () => ['hijacked']; },
  'RegExp.prototype.exec replaced': () => { RegExp.prototype.exec = () => null; },
  'Math.max replaced': () => { Math.max = () => 1e9; Math.min = () => -1e9; },
  'Host and console replaced': () => { globalThis.Host = undefined; globalThis.console = undefined; },
  'then and resolve counted': () => {
    const then = Promise.prototype.then;
    const resolve = Promise.resolve;
    Promise.prototype.then = function (...args) { seen.then++; return then.apply(this, args); };
    Promise.resolve = function (...args) { seen.resolve++; return resolve.apply(this, args); };
    const clear = Map.prototype.clear;
    Map.prototype.clear = function () { seen.clear++; return clear.call(this); };
  },
};

export default defineExtension({
  info: { id: 'rewrites', name: 'rewrites', version: '1.0.0' },
  backend: {
    targets: ['t'],
    irVersions: ['3'],
    generate({ options }, ctx) {
      if (options.rewrite) rewrites[options.rewrite]();
      let content = options.report ? \`then \${seen.then}, resolve \${seen.resolve}, clear \${seen.clear}\` : 'ok';
      if (options.exercise) {
        // What the host sees of the runtime's own work after the rewrite: log lines, a URL.
        for (let i = 0; i < logCalls.length; i++) apply(guestConsole[logCalls[i].method], guestConsole, logCalls[i].args);
        ctx.log('info', 'from ctx');
        ctx.progress('report', 'half', 50);
        const url = new GuestURL(${JSON.stringify(URL_INPUT)}, ${JSON.stringify(URL_BASE)});
        url.searchParams.append('s', 't u');
        url.hash = '';
        content = url.href + ' ' + url.host + ' ' + url.pathname + ' ' + url.searchParams.get('q');
      }
      return { artifacts: [textArtifact('a.txt', content)] };
    },
  },
});
`;
const ir = { formatVersion: 3, distribution: ['Library', [['acme']], [], { modules: [] }] };
const REWRITES = [
  'JSON replaced',
  'JSON deleted',
  'JSON.stringify replaced',
  'String replaced',
  'Promise.resolve replaced',
  'Array iterator replaced',
  'Array.prototype.push replaced',
  'Object.prototype.then added',
  'Map.prototype.set replaced',
  'Host and console replaced',
  'Array.prototype.map replaced',
  'Array.prototype.join replaced',
  'String.prototype.replace replaced',
  'String.prototype.split replaced',
  'Object.keys replaced',
  'RegExp.prototype.exec replaced',
  'Math.max replaced',
];

let built: Promise<{ dir: string; wasm: string; mjs: string }> | undefined;
const guests = () => (built ??= buildSourceBothRuntimes('rewrites', SOURCE));

/**
 * Opens a session, applies `rewrite` in one generate that then logs and builds a URL
 * (`exercise`), then asks twice more; returns the answers and the log lines the host received.
 */
async function afterRewrite(artifact: string, rewrite: string, report = false): Promise<{ first: unknown; second: unknown; ping: unknown; logs: string[] }> {
  // A wasm guest's console reaches the host's log sink, a process guest's (and ctx.log) arrives as morphir.log.
  const logs: string[] = [];
  const session = createSession({ transport: await openTransport(specFromPath(artifact), (e) => void (e.level !== 'debug' && logs.push(`${e.level}: ${e.message}`))) });
  session.onLog((p) => void logs.push(`${p.level}: ${p.message}`));
  session.onProgress((p) => void logs.push(`progress: ${p.kind} ${p.message} ${p.percentage}`));
  try {
    await session.start();
    const first = await session.generate({ ir, target: 't', options: { rewrite, exercise: !report } });
    const second = await session.generate({ ir, target: 't', options: { report } });
    const ping = await session.ping();
    return { first, second, ping, logs: logs.sort() };
  } finally {
    await session.close();
  }
}

const url = new URL(URL_INPUT, URL_BASE);
url.searchParams.append('s', 't u');
url.hash = '';
const URL_EXPECTED = `${url.href} ${url.host} ${url.pathname} ${url.searchParams.get('q')}`;
const LOGS_EXPECTED = [...LOGS.map((l) => `${l.level}: ${format(...l.args)}`), 'info: from ctx', 'progress: report half 50'].sort();

const contentOf = (result: unknown): string => ((result as { artifacts: { content: string }[] }).artifacts[0]!.content);

const Rewrites = suite('guest pdk :: a guest that rewrites built-ins still gets its answers');

Rewrites.after(async () => rmSync((await guests()).dir, { recursive: true, force: true }));

for (const runtime of ['wasm', 'process'] as const) {
  for (const rewrite of REWRITES) {
    Rewrites(`should answer after "${rewrite}" :: ${runtime} :: hostile`, async () => {
      const g = await guests();
      const { first, second, ping, logs } = await afterRewrite(runtime === 'wasm' ? g.wasm : g.mjs, rewrite);
      assert.is(contentOf(first), URL_EXPECTED, 'the URL is built as Node builds it');
      assert.equal(logs, LOGS_EXPECTED, 'the log lines are formatted as Node formats them');
      assert.is(contentOf(second), 'ok');
      assert.equal(ping, { ok: true });
    });
  }

  Rewrites(`should not let the guest see the runtime's then, Promise.resolve or Map.prototype.clear calls :: ${runtime} :: hostile`, async () => {
    const g = await guests();
    const { second } = await afterRewrite(runtime === 'wasm' ? g.wasm : g.mjs, 'then and resolve counted', true);
    assert.is(contentOf(second), 'then 0, resolve 0, clear 0');
  });
}

Rewrites.run();

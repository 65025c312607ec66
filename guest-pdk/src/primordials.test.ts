// A guest that rewrites built-ins (issue 33): the PDK and the engine's glue take what they use
// before the extension's code runs (./primordials.ts, build/engine/glue/prelude.js), so the
// answer stays a well-formed JSON-RPC answer with the handler's result, in wasm and as a process,
// and the PDK's own promise work is not seen by a guest counting `then` calls.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { rmSync } from 'node:fs';
import { buildSourceBothRuntimes } from '../../build/guest/testing/build-both.ts';
import { openTransport, specFromPath } from '../../host/src/registry/launch.ts';
import { createSession } from '../../host/src/session/session.ts';

const SOURCE = `import { defineExtension, textArtifact } from 'mep-runtime/guest-pdk';

const seen = { then: 0, resolve: 0, clear: 0 };
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
    generate({ options }) {
      if (options.rewrite) rewrites[options.rewrite]();
      const content = options.report ? \`then \${seen.then}, resolve \${seen.resolve}, clear \${seen.clear}\` : 'ok';
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
];

let built: Promise<{ dir: string; wasm: string; mjs: string }> | undefined;
const guests = () => (built ??= buildSourceBothRuntimes('rewrites', SOURCE));

/** Opens a session, applies `rewrite` in one generate, then asks twice more. */
async function afterRewrite(artifact: string, rewrite: string, report = false): Promise<{ first: unknown; second: unknown; ping: unknown }> {
  const session = createSession({ transport: await openTransport(specFromPath(artifact)) });
  try {
    await session.start();
    const first = await session.generate({ ir, target: 't', options: { rewrite } });
    const second = await session.generate({ ir, target: 't', options: { report } });
    const ping = await session.ping();
    return { first, second, ping };
  } finally {
    await session.close();
  }
}

const contentOf = (result: unknown): string => ((result as { artifacts: { content: string }[] }).artifacts[0]!.content);

const Rewrites = suite('guest pdk :: a guest that rewrites built-ins still gets its answers');

Rewrites.after(async () => rmSync((await guests()).dir, { recursive: true, force: true }));

for (const runtime of ['wasm', 'process'] as const) {
  for (const rewrite of REWRITES) {
    Rewrites(`should answer after "${rewrite}" :: ${runtime} :: hostile`, async () => {
      const g = await guests();
      const { first, second, ping } = await afterRewrite(runtime === 'wasm' ? g.wasm : g.mjs, rewrite);
      assert.is(contentOf(first), 'ok');
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

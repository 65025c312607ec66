// ES2021+ language features, one deterministic use each: the parity test (modern.test.ts) runs
// them in the wasm sandbox, in the process runtime and directly in Node. None of these lines
// stops QuickJS 2021-03-27 from loading the module (esbuild turns `/b/d` into `new RegExp`),
// so on that engine each probe fails on its own; the one literal that stops the whole module
// (`/[\-]/u`, ajv's) is in literal.js.

/** Each probe's answer, by feature. */
export const PROBES = {
  // A `u` RegExp whose class escapes `-` (ajv's fast-uri has one), built at run time here.
  uEscape: () => { const r = new RegExp('^[\\-a]+$', 'u'); return [r.test('a-a'), r.test('b')]; },
  // Match indices (ES2022).
  dFlag: () => { const m = /b(c)/d.exec('abcd'); return [m.indices[0], m.indices[1]]; },
  // Error cause (ES2022): 2021 QuickJS accepts the option and drops it.
  errorCause: () => { const e = new Error('outer', { cause: 'inner' }); return [e.message, 'cause' in e, e.cause]; },
  weakRef: () => { const target = { n: 1 }; const ref = new WeakRef(target); return [ref.deref() === target, ref.deref().n]; },
  // The target stays referenced: QuickJS counts references and frees an unreferenced one at once.
  finalizationRegistry: () => { const registry = new FinalizationRegistry(() => {}); const target = { n: 1 }; const token = {}; registry.register(target, 'held', token); return [registry.unregister(token), registry.unregister(token), target.n]; },
  // ES2025.
  setMethods: () => { const a = new Set([1, 2, 3]); const b = new Set([3, 4]); return [[...a.union(b)], [...a.intersection(b)], [...a.difference(b)], a.isSupersetOf(new Set([1]))]; },
  iteratorHelpers: () => [[1, 2, 3, 4].values().map((x) => x * 2).filter((x) => x > 2).toArray(), [5, 6].values().take(1).toArray()],
  arrayFromAsync: async () => {
    async function* gen() { yield 1; await null; yield 2; }
    return [await Array.fromAsync(gen()), await Array.fromAsync([Promise.resolve(3), 4])];
  },
  promiseWithResolvers: async () => { const { promise, resolve } = Promise.withResolvers(); setTimeout(() => resolve('resolved'), 1); return await promise; },
  // The event loop's order: microtasks before timers, timers by due time, then creation order
  // (0 ms is 1 ms, as in Node). The answer comes from the last timer itself, so that Node under
  // load gives the same order.
  timerOrder: () => new Promise((resolve) => {
    const out = [];
    setTimeout(() => { out.push('t1a'); Promise.resolve().then(() => out.push('t1a-micro')); }, 1);
    setTimeout(() => out.push('t1b'), 1);
    setTimeout(() => { out.push('t0'); setTimeout(() => { out.push('nested'); resolve(out); }, 0); }, 0);
    queueMicrotask(() => out.push('micro'));
    Promise.resolve().then(() => out.push('then'));
    out.push('sync');
  }),
};

/** Runs every probe of `probes`: `{ ok }` with its answer, or `{ threw }` with the error's name. */
export async function runProbes(probes = PROBES) {
  const out = {};
  for (const [name, fn] of Object.entries(probes)) {
    try {
      out[name] = { ok: await fn() };
    } catch (error) {
      out[name] = { threw: error?.name };
    }
  }
  return out;
}

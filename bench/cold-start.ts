/**
 * The engine bench's cold start (bench/engine.bench.ts): instantiate a cached Module + its first
 * call, several ways taken in turn each round (so all see the same load), with the minor page
 * faults each took (`process.resourceUsage()`, the figure load does not move: a fault is 11–36 µs
 * on these VMs). Five rounds more run first and are not counted: V8 compiles wasm functions lazily
 * on their first call and tiers them up in the background, so the first instances of a
 * just-compiled Module measure the compiler, not the instantiation.
 */
import { createExtismEngine } from '../host/src/transport/wasm/index.ts';
import { resolveWasmLimits } from '../host/src/transport/wasm/limits.ts';
import type { WasmEngine } from '../host/src/transport/wasm/engine.ts';
import { median } from './lib.ts';

/** Creates an instance and makes its first call; resolves to what closes it. */
export type Starter = () => Promise<() => Promise<void>>;

/** Median milliseconds and minor page faults (median and minimum) of each starter. */
export interface ColdStart {
  ms: number;
  faults: number;
  minFaults: number;
}

/** Runs every starter once a round, `runs` rounds after 5 not counted. */
export async function coldStarts<K extends string>(starters: Record<K, Starter>, runs: number): Promise<Record<K, ColdStart>> {
  const names = Object.keys(starters) as K[];
  const times = new Map<K, number[]>(names.map((n) => [n, []]));
  const faults = new Map<K, number[]>(names.map((n) => [n, []]));
  for (let i = -5; i < runs; i++) {
    for (const name of names) {
      const f = process.resourceUsage().minorPageFault;
      const s = performance.now();
      const close = await starters[name]();
      const ms = performance.now() - s;
      const took = process.resourceUsage().minorPageFault - f;
      await close();
      if (i < 0) continue;
      times.get(name)?.push(ms);
      faults.get(name)?.push(took);
    }
  }
  return Object.fromEntries(names.map((n) => [n, { ms: median(times.get(n) as number[]), faults: median(faults.get(n) as number[]), minFaults: Math.min(...(faults.get(n) as number[])) }])) as Record<K, ColdStart>;
}

/**
 * The runtime's own engine (what a session instantiates: host functions, limits, the host
 * channel) on `module`, and one `handle` call of `msg`.
 */
export function runtimeStarter(module: WebAssembly.Module, msg: string): Starter {
  const input = new TextEncoder().encode(msg);
  return async () => {
    const engine: WasmEngine = await createExtismEngine(module, {
      name: 'bench',
      limits: resolveWasmLimits('bench', {}),
      grants: {},
      interruptFlag: new Int32Array(1),
      bridge: { notify: () => undefined, artifact: () => undefined, request: () => null, log: () => undefined },
    });
    const outcome = await engine.call(input.slice(), 10_000);
    if (!outcome.ok) throw new Error(`cold start: the guest failed: ${outcome.error.message}`);
    return () => engine.close();
  };
}

/**
 * For the engine's tests: a script run in the engine and the same script run in V8, so an edit to
 * QuickJS is checked against what V8 gives. Not a test file itself.
 */
import { readFileSync } from 'node:fs';
import { capMemorySection } from '../../host/src/transport/wasm/memory-cap.ts';
import { createEngineRunner, ensureEngine, type EngineRunner } from './index.ts';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const dec = (b: Uint8Array | null): string => (b ? new TextDecoder().decode(b) : '');

/** An engine instance with `source` compiled; `run(fn, input)` returns its output or throws its error. */
export async function engineWith(source: string, maxMemoryBytes?: number): Promise<{ r: EngineRunner; run: (fn: string, input?: string | Uint8Array) => string }> {
  let bytes: Uint8Array = readFileSync((await ensureEngine()).wasmPath);
  if (maxMemoryBytes !== undefined) bytes = capMemorySection(bytes, maxMemoryBytes / 65536).bytes;
  const r = await createEngineRunner(bytes);
  const c = r.compile(source);
  if (!c.ok) throw new Error(c.message);
  const run = (fn: string, input?: string | Uint8Array): string => {
    const res = r.invoke(c.bytecode, fn, typeof input === 'string' ? enc(input) : input);
    if (res.error !== null) throw new Error(res.error);
    return dec(res.output);
  };
  return { r, run };
}

/** What V8 outputs for the same script (its `Host.outputString`), for comparison. */
export function inV8(source: string, fn: string, input?: string): string {
  let out = '';
  const host = { outputString: (s: string) => void (out = s), inputString: () => input ?? '' };
  const mep = { inputJson: () => JSON.parse(input ?? '') };
  new Function('Host', '__mep', `${source}\n${fn}();`)(host, mep);
  return out;
}

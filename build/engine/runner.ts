/**
 * Runs the engine in this Node process through its Javy plugin ABI (and the guest entry points),
 * with the {@link createStubHost} imports. The build pipeline uses it to turn a bundle into
 * QuickJS bytecode and to evaluate the bundle once before snapshotting, so that syntax errors and
 * top-level throws come back as messages rather than wasm traps.
 */
import { readFileSync } from 'node:fs';
import { createStubHost, type StubHost, type StubHostOptions } from './stub-host.ts';

/** Result of `compile-src`. */
export type CompileResult = { ok: true; bytecode: Uint8Array } | { ok: false; message: string };

/** Result of a call through the stub host. */
export interface CallResult {
  /** The export's return code (0 for `invoke`). */
  rc: number;
  /** Output the guest produced, null if none. */
  output: Uint8Array | null;
  /** Error the guest reported through error_set, null if none. */
  error: string | null;
}

/** One engine instance driven from Node. */
export interface EngineRunner {
  /** The instance (exports: memory, compile-src, invoke, …). */
  readonly instance: WebAssembly.Instance;
  /** The stub host bound to the instance. */
  readonly host: StubHost;
  /** `compile-src`: source to QuickJS bytecode or an error message. */
  compile(source: string): CompileResult;
  /** `invoke`: evaluates bytecode, then optionally calls the named function. */
  invoke(bytecode: Uint8Array, fn?: string, input?: Uint8Array): CallResult;
  /** `mep_guest_init`: evaluates a build blob and binds its exports; null or an error message. */
  guestInit(blob: Uint8Array): string | null;
  /** `mep_call_export`: calls the export with that index. */
  callExport(index: number, input?: Uint8Array): CallResult;
}

type Fn = (...args: number[]) => number;

/**
 * Instantiates the engine (a path, bytes or a compiled module) with a stub host.
 *
 * @example
 * const r = await createEngineRunner((await ensureEngine()).wasmPath);
 * const c = r.compile('Host.outputString("hi")');
 */
export async function createEngineRunner(engine: string | Uint8Array | WebAssembly.Module, options: StubHostOptions = {}): Promise<EngineRunner> {
  const host = createStubHost(options);
  const module = engine instanceof WebAssembly.Module ? engine : await WebAssembly.compile(typeof engine === 'string' ? readFileSync(engine) : (engine as Uint8Array<ArrayBuffer>));
  const instance = await WebAssembly.instantiate(module, host.imports);
  host.bind(instance);
  const x = instance.exports as Record<string, Fn>;
  const memory = instance.exports.memory as WebAssembly.Memory;
  const put = (bytes: Uint8Array): number => {
    const ptr = x.cabi_realloc(0, 0, 1, Math.max(bytes.length, 1));
    new Uint8Array(memory.buffer).set(bytes, ptr);
    return ptr;
  };
  const release = (ptr: number, len: number): void => void x.cabi_realloc(ptr, len, 1, 0);
  const cString = (ptr: number): string => {
    const m = new Uint8Array(memory.buffer);
    let end = ptr;
    while (m[end] !== 0) end++;
    return new TextDecoder().decode(m.subarray(ptr, end));
  };
  x['initialize-runtime']();

  return {
    instance,
    host,
    compile(source) {
      const src = new TextEncoder().encode(source);
      const ptr = put(src);
      const res = x['compile-src'](ptr, src.length);
      release(ptr, src.length);
      const [discr, p, len] = new Uint32Array(memory.buffer.slice(res, res + 12));
      const bytes = new Uint8Array(memory.buffer).slice(p, p + len);
      release(p, len);
      return discr === 0 ? { ok: true, bytecode: bytes } : { ok: false, message: new TextDecoder().decode(bytes) };
    },
    invoke(bytecode, fn, input = new Uint8Array(0)) {
      host.reset();
      host.setInput(input);
      const bc = put(bytecode);
      const name = fn === undefined ? null : new TextEncoder().encode(fn);
      const np = name ? put(name) : 0;
      x.invoke(bc, bytecode.length, name ? 1 : 0, np, name?.length ?? 0);
      release(bc, bytecode.length);
      if (name) release(np, name.length);
      return { rc: host.error === null ? 0 : 1, output: host.output, error: host.error };
    },
    guestInit(blob) {
      const ptr = put(blob); // mep_guest_init frees it
      const err = x.mep_guest_init(ptr, blob.length);
      if (err === 0) return null;
      const message = cString(err);
      release(err, message.length + 1);
      return message;
    },
    callExport(index, input = new Uint8Array(0)) {
      host.reset();
      host.setInput(input);
      const rc = x.mep_call_export(index);
      return { rc, output: host.output, error: host.error };
    },
  };
}

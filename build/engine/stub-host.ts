/**
 * A small in-process host for running the engine without the Extism SDK: a minimal
 * `extism:host/env` kernel (blocks in a Map) and the MEP host functions of wit/mep-guest.wit,
 * attached through the engine's table.
 * The build pipeline uses it to compile and pre-evaluate guests; tests use it to reach the
 * Javy plugin ABI directly.
 */

import { attachHostChannel, defaultHostTrampoline } from '../../host/src/transport/wasm/host-channel.ts';

/** Options for {@link createStubHost}. */
export interface StubHostOptions {
  /** Receives console output and Extism logs (level: debug, info, warn, error). */
  onLog?: (level: 'debug' | 'info' | 'warn' | 'error', text: string) => void;
  /**
   * Receives `mep_notify` messages, and the artifacts sent through `mep_artifact` written as the
   * morphir.backend.artifact notification they stand for, unless `onArtifact` takes them.
   */
  onNotify?: (json: string) => void;
  /** Receives `mep_artifact` calls: the envelope's text and the content's bytes. */
  onArtifact?: (envelope: string, content: Uint8Array) => void;
  /** Answers `mep_request` messages (null: no response). */
  onRequest?: (json: string) => string | null;
  /** Returns true when the guest should stop (`mep_interrupt`). */
  interrupt?: () => boolean;
  /** Granted wall clock; omitted: time is not granted (0). */
  clockMs?: () => number;
  /** Grant randomness (`mep_random_fill`). */
  random?: boolean;
  /** Values for `Config.get`. */
  config?: Record<string, string>;
}

/** A stub host bound to one engine instance. */
export interface StubHost {
  /** The import object to instantiate the engine with. */
  readonly imports: WebAssembly.Imports;
  /**
   * Binds the host to the instance's exported memory and attaches the MEP host channel to an
   * engine that exports `mep_host_attach` (call once after instantiation).
   */
  bind(instance: WebAssembly.Instance): void;
  /** Sets the input of the next call. */
  setInput(bytes: Uint8Array): void;
  /** Output of the last call (`mep_output_copy`), null if none. */
  readonly output: Uint8Array | null;
  /** Error of the last call (`error_set`), null if none. */
  readonly error: string | null;
  /** Clears output and error before a call. */
  reset(): void;
}

const BLOCK_SHIFT = 32n;

/** Creates a stub host; see {@link StubHostOptions}. */
export function createStubHost(options: StubHostOptions = {}): StubHost {
  let memory: WebAssembly.Memory | undefined;
  let input: Uint8Array = new Uint8Array(0);
  let output: Uint8Array | null = null;
  let error: string | null = null;
  let reply: Uint8Array | null = null;
  const blocks = new Map<bigint, Uint8Array>();
  let nextBlock = 1n;
  const mem = (): Uint8Array => {
    if (!memory) throw new Error('stub host: bind(instance) was not called');
    return new Uint8Array(memory.buffer);
  };
  const block = (off: bigint): [Uint8Array, number] => {
    const b = blocks.get(off >> BLOCK_SHIFT);
    if (!b) throw new Error(`stub host: no memory block at ${off}`);
    return [b, Number(off & 0xffffffffn)];
  };
  const text = (off: bigint): string => new TextDecoder().decode(block(off)[0]);
  const utf8 = (ptr: number, len: number): string => new TextDecoder().decode(mem().subarray(ptr, ptr + len));
  const log = (level: 'debug' | 'info' | 'warn' | 'error') => (off: bigint) => options.onLog?.(level, text(off));

  const env = {
    input_length: () => BigInt(input.length),
    input_load_u8: (i: bigint) => input[Number(i)] ?? 0,
    input_load_u64: (i: bigint) => new DataView(input.buffer, input.byteOffset).getBigUint64(Number(i), true),
    alloc: (len: bigint) => {
      const id = nextBlock++;
      blocks.set(id, new Uint8Array(Number(len)));
      return id << BLOCK_SHIFT;
    },
    free: (off: bigint) => void blocks.delete(off >> BLOCK_SHIFT),
    length: (off: bigint) => BigInt(blocks.get(off >> BLOCK_SHIFT)?.length ?? 0),
    length_unsafe: (off: bigint) => BigInt(blocks.get(off >> BLOCK_SHIFT)?.length ?? 0),
    load_u8: (off: bigint) => { const [b, i] = block(off); return b[i]; },
    load_u64: (off: bigint) => { const [b, i] = block(off); return new DataView(b.buffer).getBigUint64(i, true); },
    store_u8: (off: bigint, v: number) => { const [b, i] = block(off); b[i] = v; },
    store_u64: (off: bigint, v: bigint) => { const [b, i] = block(off); new DataView(b.buffer).setBigUint64(i, v, true); },
    output_set: (off: bigint, len: bigint) => { const [b, i] = block(off); output = b.slice(i, i + Number(len)); },
    error_set: (off: bigint) => { error = text(off); },
    config_get: (off: bigint) => {
      const value = options.config?.[text(off)];
      if (value === undefined) return 0n;
      const bytes = new TextEncoder().encode(value);
      const out = env.alloc(BigInt(bytes.length));
      blocks.get(out >> BLOCK_SHIFT)!.set(bytes);
      return out;
    },
    var_get: () => 0n,
    var_set: () => {},
    http_request: () => 0n,
    http_status_code: () => 0,
    log_debug: log('debug'),
    log_info: log('info'),
    log_warn: log('warn'),
    log_error: log('error'),
  };
  const user = {
    mep_input_copy: (dst: number, len: number) => {
      const n = Math.min(len, input.length);
      mem().set(input.subarray(0, n), dst);
      return n;
    },
    mep_output_copy: (src: number, len: number) => {
      output = mem().slice(src, src + len);
      return 0;
    },
    mep_notify: (ptr: number, len: number) => options.onNotify?.(utf8(ptr, len)),
    mep_artifact: (envelopePtr: number, envelopeLen: number, contentPtr: number, contentLen: number) => {
      const content = mem().slice(contentPtr, contentPtr + contentLen);
      if (options.onArtifact !== undefined) return options.onArtifact(utf8(envelopePtr, envelopeLen), content);
      const { requestId, path, binary } = JSON.parse(utf8(envelopePtr, envelopeLen)) as Record<string, unknown>;
      options.onNotify?.(JSON.stringify({ jsonrpc: '2.0', method: 'morphir.backend.artifact', params: { requestId, artifact: { path, content: new TextDecoder().decode(content), binary } } }));
    },
    mep_request: (ptr: number, len: number) => {
      const answer = options.onRequest?.(utf8(ptr, len)) ?? null;
      reply = answer === null ? null : new TextEncoder().encode(answer);
      return reply ? reply.length : -1;
    },
    mep_reply_copy: (dst: number, len: number) => {
      if (!reply) return 0;
      const n = Math.min(len, reply.length);
      mem().set(reply.subarray(0, n), dst);
      reply = null;
      return n;
    },
    mep_interrupt: () => (options.interrupt?.() ? 1 : 0),
    mep_clock_ms: () => options.clockMs?.() ?? 0,
    mep_random_fill: (dst: number, len: number) => {
      if (!options.random) return 0;
      crypto.getRandomValues(mem().subarray(dst, dst + len));
      return len;
    },
  };
  return {
    // The MEP host functions are attached in bind(), not imported (wit/mep-guest.wit).
    imports: { 'extism:host/env': env },
    bind(instance) {
      memory = instance.exports.memory as WebAssembly.Memory;
      if (instance.exports.mep_host_attach !== undefined) attachHostChannel(instance, user, defaultHostTrampoline() as WebAssembly.Module);
    },
    setInput(bytes) {
      input = bytes;
    },
    get output() {
      return output;
    },
    get error() {
      return error;
    },
    reset() {
      output = null;
      error = null;
      blocks.clear();
    },
  };
}

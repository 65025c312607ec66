/**
 * Test and bench support: runs a built guest under the real `@extism/extism` SDK (no WASI) with
 * the MEP host functions of wit/mep-guest.wit implemented by copying straight into and out of
 * the guest's memory (attached through the table, or imported by a legacy guest). The wasm-transport engineer's host/src/transport/wasm/index.ts is the product
 * version; this one is deliberately small.
 */
import createPlugin, { type Plugin } from '@extism/extism';
import { attachHostChannel, defaultHostTrampoline, guestAbi, type HostChannelFunctions } from '../../../host/src/transport/wasm/host-channel.ts';

/** Options for {@link createMepPlugin}. */
export interface MepPluginOptions {
  onNotify?: (json: string) => void;
  onRequest?: (json: string) => string | null;
  /** Polled by the guest's interrupt handler; true stops the call. */
  interrupt?: () => boolean;
  /** Largest output accepted by mep_output_copy (default 64 MiB). */
  maxOutput?: number;
  /** Grant wall-clock time. */
  clock?: boolean;
  /** Grant randomness. */
  random?: boolean;
  onLog?: (level: string, text: string) => void;
}

/** A guest under the Extism SDK. */
export interface MepPlugin {
  readonly plugin: Plugin;
  /** Calls an export with one input; resolves to the output bytes (mep_output_copy). */
  call(name: string, input?: Uint8Array | string): Promise<Uint8Array>;
  close(): Promise<void>;
}

/**
 * Instantiates a guest with the MEP host functions.
 *
 * @example
 * const p = await createMepPlugin(bytes);
 * try { await p.call('handle', '{"jsonrpc":"2.0","id":1,"method":"x"}') } finally { await p.close() }
 */
export async function createMepPlugin(wasm: Uint8Array | WebAssembly.Module, options: MepPluginOptions = {}): Promise<MepPlugin> {
  let memory: WebAssembly.Memory | undefined;
  let input: Uint8Array = new Uint8Array(0);
  let output = new Uint8Array(0);
  let reply: Uint8Array | null = null;
  const max = options.maxOutput ?? 64 * 1024 * 1024;
  const bytes = (): Uint8Array => new Uint8Array(memory!.buffer);
  const text = (ptr: number, len: number): string => new TextDecoder().decode(bytes().subarray(ptr >>> 0, (ptr >>> 0) + len));
  const user = {
    mep_input_copy: (_: unknown, dst: number, len: number) => {
      const n = Math.min(len, input.length);
      bytes().set(input.subarray(0, n), dst >>> 0);
      return n;
    },
    mep_output_copy: (_: unknown, src: number, len: number) => {
      if (len > max) return 1;
      output = bytes().slice(src >>> 0, (src >>> 0) + len);
      return 0;
    },
    mep_notify: (_: unknown, ptr: number, len: number) => void options.onNotify?.(text(ptr, len)),
    mep_request: (_: unknown, ptr: number, len: number) => {
      const answer = options.onRequest?.(text(ptr, len)) ?? null;
      reply = answer === null ? null : new TextEncoder().encode(answer);
      return reply ? reply.length : -1;
    },
    mep_reply_copy: (_: unknown, dst: number, len: number) => {
      if (!reply) return 0;
      const n = Math.min(len, reply.length);
      bytes().set(reply.subarray(0, n), dst >>> 0);
      reply = null;
      return n;
    },
    mep_interrupt: () => (options.interrupt?.() ? 1 : 0),
    mep_clock_ms: () => (options.clock ? Date.now() : 0),
    mep_random_fill: (_: unknown, dst: number, len: number) => {
      if (!options.random) return 0;
      for (let off = 0; off < len; off += 65536) crypto.getRandomValues(bytes().subarray((dst >>> 0) + off, (dst >>> 0) + Math.min(len, off + 65536)));
      return len;
    },
  };
  // A bare Module and a `fetch` of our own: a manifest object or the SDK's default `fetch` make
  // the SDK touch Node's global Response/fetch, which loads undici (tens of ms in a new process).
  const module = wasm instanceof WebAssembly.Module ? wasm : await WebAssembly.compile(wasm as Uint8Array<ArrayBuffer>);
  const noFetch = (): Promise<never> => Promise.reject(new Error('a MEP guest has no network'));
  const logger = options.onLog
    ? ({ info: (t: string) => options.onLog!('info', t), debug: (t: string) => options.onLog!('debug', t), warn: (t: string) => options.onLog!('warn', t), error: (t: string) => options.onLog!('error', t), trace: () => {}, log: (t: string) => options.onLog!('info', t) } as unknown as Console)
    : undefined;
  // A legacy guest imports the host functions; a portable one gets them attached (host-channel.ts).
  const legacy = guestAbi(module) === 'mep-imports';
  const plugin = await createPlugin(module, { useWasi: false, fetch: noFetch, functions: legacy ? { 'extism:host/user': user } : {}, logger } as never);
  const instance = await plugin.getInstance();
  memory = instance.exports.memory as WebAssembly.Memory;
  if (!legacy) {
    const plain = Object.fromEntries(Object.entries(user).map(([fn, impl]) => [fn, (...args: number[]) => (impl as (...a: unknown[]) => number | void)(undefined, ...args)]));
    attachHostChannel(instance, plain as HostChannelFunctions, defaultHostTrampoline() as WebAssembly.Module);
  }
  return {
    plugin,
    async call(name, data = new Uint8Array(0)) {
      // A Uint8Array that owns its buffer (a Buffer from the pool would expose 8 KiB; extism-sdk.md).
      input = typeof data === 'string' ? new TextEncoder().encode(data) : data;
      output = new Uint8Array(0);
      await plugin.call(name, input);
      return output;
    },
    close: () => plugin.close(),
  };
}

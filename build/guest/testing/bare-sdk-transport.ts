/**
 * Test support: a Transport that runs a guest in the bare `@extism/extism` SDK, the way any other
 * Extism host would (the Morphir reference host, the Rust/Go/Python SDKs): no WASI, no user host
 * functions, nothing attached. Each message is one `handle` call (`plugin.reset()` between calls);
 * its output, if any, is the response. Not part of the product: our own host is
 * host/src/transport/wasm.
 */
import createPlugin, { type Plugin } from '@extism/extism';
import { LocalErrorCode, MepError } from '../../../host/src/protocol/errors.ts';
import type { Disposer, JsonRpcMessage, Transport } from '../../../host/src/transport/types.ts';

/** One line the guest logged through Extism's `log_*`. */
export interface BareSdkLogLine {
  level: 'debug' | 'info' | 'warn' | 'error';
  message: string;
}

/** A {@link Transport} over the bare SDK, with what the guest logged. */
export interface BareSdkTransport extends Transport {
  readonly logs: readonly BareSdkLogLine[];
}

/**
 * Instantiates `module` with the bare SDK and returns a Transport to it.
 *
 * @example
 * const transport = await createBareSdkTransport(module, 'avro');
 * try { await runConformance({ open: async () => transport }) } finally { await transport.close() }
 */
export async function createBareSdkTransport(module: WebAssembly.Module, name: string): Promise<BareSdkTransport> {
  const logs: BareSdkLogLine[] = [];
  const logAt = (level: BareSdkLogLine['level']) => (message: unknown) => void logs.push({ level, message: String(message) });
  const logger = { debug: logAt('debug'), info: logAt('info'), warn: logAt('warn'), error: logAt('error'), trace: logAt('debug'), log: logAt('info') };
  const noFetch = (): Promise<never> => Promise.reject(new Error('a guest under test has no network'));
  const plugin: Plugin = await createPlugin(module, { useWasi: false, fetch: noFetch, logger: logger as unknown as Console } as never);
  const messageListeners = new Set<(message: JsonRpcMessage) => void>();
  const closeListeners = new Set<(error?: MepError) => void>();
  let closed = false;
  let queue: Promise<void> = Promise.resolve();

  const finish = (error?: MepError): void => {
    if (closed) return;
    closed = true;
    for (const l of closeListeners) l(error);
  };
  const deliver = (body: string): void => {
    if (closed) throw new MepError(LocalErrorCode.TransportClosed, `bare-SDK transport to "${name}" is closed`);
    const input = new TextEncoder().encode(body);
    queue = queue.then(async () => {
      if (closed) return;
      try {
        const output = await plugin.call('handle', input);
        const text = output === null ? '' : output.text();
        if (text.length > 0) {
          const message = JSON.parse(text) as JsonRpcMessage;
          for (const l of messageListeners) l(message);
        }
      } catch (error) {
        finish(new MepError(LocalErrorCode.ExtensionCrashed, `Wasm extension "${name}" failed under the bare Extism SDK: ${error instanceof Error ? error.message : String(error)}`, { cause: error }));
      } finally {
        await plugin.reset();
      }
    });
  };

  return {
    name,
    logs,
    send: (message) => deliver(JSON.stringify(message)),
    sendRaw: (body) => deliver(body),
    onMessage(listener): Disposer {
      messageListeners.add(listener);
      return () => messageListeners.delete(listener);
    },
    onClose(listener): Disposer {
      closeListeners.add(listener);
      return () => closeListeners.delete(listener);
    },
    async close() {
      await queue;
      finish();
      await plugin.close();
    },
  };
}

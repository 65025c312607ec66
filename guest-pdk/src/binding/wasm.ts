/**
 * The wasm binding: the extension runs inside the QuickJS engine as an Extism guest. One call of
 * the `handle` export carries one JSON-RPC message in and at most one response out; what the
 * guest sends during the call (progress, logs, secret requests) goes through the MEP host
 * functions (see wit/mep-guest.wit), exposed by the engine as the `__mep` global.
 */
import { createDispatcher } from '../dispatcher.ts';
import type { Extension } from '../define-extension.ts';
import type { GuestHost } from '../guest-host.ts';

/** The engine's bridge to the MEP host functions. */
interface MepBridge {
  notify(json: string): void;
  request(json: string): string | null;
  interrupted(): boolean;
}

declare const __mep: MepBridge;
declare const Host: { inputString(): string; outputString(s: string): void };

/** The exports of a PDK guest, bound to `extension`. */
export function bindWasm(extension: Extension): { handle(): number | Promise<number>; morphir_extension_info(): number } {
  const host: GuestHost = {
    notify: (message) => __mep.notify(JSON.stringify(message)),
    async request(message) {
      const reply = __mep.request(JSON.stringify({ jsonrpc: '2.0', ...message }));
      if (reply === null) return { error: { code: -32603, message: 'The host did not answer the request.' } };
      return JSON.parse(reply);
    },
    interrupted: () => __mep.interrupted(),
    // A wasm instance has nothing to release: the host discards it.
    exit: () => undefined,
  };
  const dispatcher = createDispatcher(extension, host);
  return {
    handle() {
      const write = (reply: string | undefined): number => {
        if (reply !== undefined) Host.outputString(reply);
        return 0;
      };
      // Synchronous handlers answer without a promise: the engine then needs no job queue run.
      const reply = dispatcher.dispatch(Host.inputString());
      return typeof reply === 'object' ? reply.then(write) : write(reply);
    },
    morphir_extension_info() {
      const { info } = extension.definition;
      Host.outputString(JSON.stringify({ ...info, types: extension.claims.extension.types, capabilities: extension.capabilities }));
      return 0;
    },
  };
}

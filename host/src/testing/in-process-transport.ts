/**
 * A PDK extension served directly to a host in the same JavaScript realm, behind the ordinary
 * Transport interface. No sandbox — for tests, for trusted code, and as the "same code in V8"
 * baseline in benchmarks. It lives with the test kit, on the host's side: the guest PDK knows
 * nothing of host transports (it moved here from `mep-runtime/guest-pdk`).
 */
import { createDispatcher } from '../../../guest-pdk/src/dispatcher.ts';
import type { Extension } from '../../../guest-pdk/src/define-extension.ts';
import type { GuestHost } from '../../../guest-pdk/src/guest-host.ts';
import { LocalErrorCode, MepError } from '../protocol/errors.ts';
import { findExcessNesting, nestingLimitError } from '../protocol/json-depth.ts';
import { createTransportEvents } from '../transport/events.ts';
import type { JsonRpcMessage, Transport } from '../transport/types.ts';
import { parseJson } from '../protocol/json-parse.ts';

type HostResponse = { result?: unknown; error?: { code: number; message: string; data?: unknown } };

/**
 * A transport to `extension` running in this realm. Messages are copied through JSON, as on a
 * wire, and delivered asynchronously.
 *
 * @example
 * const session = createSession({ transport: createInProcessTransport(extension) });
 */
export function createInProcessTransport(extension: Extension, name = extension.definition.info.id): Transport {
  const events = createTransportEvents();
  const waiting = new Map<string | number, (r: HostResponse) => void>();
  // What reaches the host is read as from a wire: text nested deeper than the host reads, or a
  // value too deep to write as text, ends the transport with the typed error every transport gives.
  const receive = (text: string): void => {
    if (events.closed) return;
    const excess = findExcessNesting(text);
    if (excess >= 0) events.emitClose(nestingLimitError(name, 'message', excess));
    else events.emitMessage(parseJson(text, 'data') as JsonRpcMessage);
  };
  const emit = (message: object): void => {
    let text: string;
    try {
      text = JSON.stringify(message);
    } catch {
      events.emitClose(nestingLimitError(name, 'message'));
      return;
    }
    receive(text);
  };
  const host: GuestHost = {
    notify: (m) => {
      queueMicrotask(() => emit(m));
      return true;
    },
    request: (m) =>
      new Promise((resolve) => {
        waiting.set(m.id, resolve);
        queueMicrotask(() => emit({ jsonrpc: '2.0', ...m }));
      }),
    interrupted: () => false,
    exit: () => queueMicrotask(() => events.emitClose()),
  };
  const dispatcher = createDispatcher(extension, host);
  const deliver = (body: string) => {
    void Promise.resolve(dispatcher.dispatch(body)).then((reply) => {
      if (reply !== undefined) receive(reply);
    });
  };
  return {
    name,
    send(message) {
      if (events.closed) throw new MepError(LocalErrorCode.TransportClosed, `The in-process extension '${name}' is closed.`);
      const id = message.id as string | number | undefined;
      if (message.method === undefined && id !== undefined && waiting.has(id)) {
        const resolve = waiting.get(id) as (r: HostResponse) => void;
        waiting.delete(id);
        resolve(message as HostResponse);
        return;
      }
      deliver(JSON.stringify(message));
    },
    sendRaw(body) {
      if (events.closed) throw new MepError(LocalErrorCode.TransportClosed, `The in-process extension '${name}' is closed.`);
      deliver(body);
    },
    onMessage: events.onMessage,
    onClose: events.onClose,
    async close() {
      events.emitClose();
    },
  };
}

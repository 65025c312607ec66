/**
 * Test support for the dispatcher's suites (dispatcher.test.ts, dispatcher-cancel.test.ts): a
 * host that records what the guest sends, a JSON-RPC call through a dispatcher, and a gate a
 * handler waits at while the test acts on the running call.
 */
import type { createDispatcher } from '../dispatcher.ts';
import type { GuestHost } from '../guest-host.ts';

/** `morphir.initialize` params of a host that speaks MEP 0.1. */
export const INIT = { protocolVersions: ['0.1'], host: { name: 'test', version: '1' } };

/** A host that records notifications and requests, answers secret requests, and records exits. */
export function fakeHost() {
  const sent: object[] = [];
  const exits: number[] = [];
  let secretAnswer: { result?: unknown; error?: { code: number; message: string } } = { result: 's3cret' };
  const host: GuestHost = {
    notify: (m) => {
      sent.push(m);
      return true;
    },
    request: async (m) => {
      sent.push(m);
      return secretAnswer;
    },
    interrupted: () => false,
    exit: (code) => void exits.push(code),
  };
  return { host, sent, exits, answerSecret: (a: typeof secretAnswer) => (secretAnswer = a) };
}

/** Sends one request to `d` and parses its answer. */
export async function call(d: ReturnType<typeof createDispatcher>, method: string, params?: unknown, id: string | number | null = 1) {
  const message: Record<string, unknown> = { jsonrpc: '2.0', id, method };
  if (params !== undefined) message.params = params;
  const reply = await d.dispatch(JSON.stringify(message));
  return JSON.parse(reply as string) as { id: unknown; result?: any; error?: { code: number; message: string; data?: any } };
}

/**
 * A handler's waiting point: the handler calls `arrive()` and awaits `gate`; the test awaits
 * `arrived` (the handler is running), acts, then calls `release()`.
 */
export function handlerGate(): { arrive: () => void; arrived: Promise<void>; gate: Promise<void>; release: () => void } {
  let arrive!: () => void;
  const arrived = new Promise<void>((r) => (arrive = r));
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  return { arrive, arrived, gate, release };
}

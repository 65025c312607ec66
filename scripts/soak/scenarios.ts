/**
 * What one soak session does, by kind: the ordinary work of an editor or build tool (open, ping,
 * a real Avro generate, close), and the hostile cases a long-running host meets (cancels, abrupt
 * disconnects, guests that crash, trap or time out, an extension that ignores exit). Each kind
 * records every call it sent and what came back in a {@link Tally}.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Answer, SoakClient } from './soak-client.ts';
import type { Tally } from './tally.ts';

/** Paths of the guests the soak opens. */
export interface SoakGuests {
  /** The Avro example built to wasm (the `mep init` template's shape, with a real generator). */
  avroWasm: string;
  /** fixtures/extensions: a well-behaved process extension and hostile ones. */
  wellBehaved: string;
  crashMidRequest: string;
  hangOnShutdown: string;
  /** fixtures/wasm guests built to .wasm: one that spins forever, one that traps. */
  loopWasm: string;
  trapWasm: string;
  /** A Morphir IR for the Avro generate. */
  ir: unknown;
}

/** Loads the customer IR and names the fixture paths; wasm paths are built by the caller. */
export function soakGuests(root: string, built: { avroWasm: string; loopWasm: string; trapWasm: string }): SoakGuests {
  return {
    ...built,
    wellBehaved: join(root, 'fixtures/extensions/well-behaved.mjs'),
    crashMidRequest: join(root, 'fixtures/extensions/crash-mid-request.mjs'),
    hangOnShutdown: join(root, 'fixtures/extensions/hang-on-shutdown.mjs'),
    ir: JSON.parse(readFileSync(join(root, 'fixtures/ir/customer/morphir-ir.json'), 'utf8')),
  };
}

/** The kinds of session, by name. */
export const SCENARIOS = {
  /** Open the wasm guest, several pings, close. */
  wasmPing: async (client, guests, tally) => {
    const sessionId = await open(client, guests.avroWasm, tally);
    if (sessionId === undefined) return;
    await Promise.all(Array.from({ length: 5 }, () => call(client, tally, sessionId, 'morphir.ping')));
    await close(client, tally, sessionId);
  },
  /** Open the wasm guest, a real Avro generate, close. */
  wasmGenerate: async (client, guests, tally) => {
    const sessionId = await open(client, guests.avroWasm, tally);
    if (sessionId === undefined) return;
    const answer = await call(client, tally, sessionId, 'morphir.backend.generate', { ir: guests.ir, target: 'avro', options: {} });
    if (answer !== 'unanswered' && !('result' in answer && (answer.result as { success?: boolean }).success === true)) tally.wrong('wasm generate did not succeed');
    await close(client, tally, sessionId);
  },
  /** Open a process extension, ping and an echo generate, close. */
  processCalls: async (client, guests, tally) => {
    const sessionId = await open(client, guests.wellBehaved, tally);
    if (sessionId === undefined) return;
    await call(client, tally, sessionId, 'morphir.ping');
    await call(client, tally, sessionId, 'morphir.backend.generate', { ir: guests.ir, target: 'echo', options: {} });
    await close(client, tally, sessionId);
  },
  /** A long process call cancelled once it reported progress: -32800, then the session goes on. */
  cancel: async (client, guests, tally) => {
    const sessionId = await open(client, guests.wellBehaved, tally);
    if (sessionId === undefined) return;
    const started = client.next((m) => m.method === 'session/progress' && (m.params as { sessionId?: string }).sessionId === sessionId);
    const slow = call(client, tally, sessionId, 'morphir.backend.generate', { ir: guests.ir, target: 'echo', options: { delayMs: 20_000, progress: true } });
    await started;
    client.notify('$/cancelRequest', { id: slow.id });
    const answer = await slow;
    if (answer !== 'unanswered' && (answer.error as { code?: number } | undefined)?.code !== -32800) tally.wrong('a cancelled call was not answered -32800');
    await call(client, tally, sessionId, 'morphir.ping');
    await close(client, tally, sessionId);
  },
  /** Open the wasm guest, fire calls and drop the connection before their answers. */
  abruptWasm: async (client, guests, tally) => {
    const sessionId = await open(client, guests.avroWasm, tally);
    if (sessionId === undefined) return;
    for (let i = 0; i < 3; i++) abandon(client, tally, sessionId, 'morphir.ping');
    abandon(client, tally, sessionId, 'morphir.backend.generate', { ir: guests.ir, target: 'avro', options: {} });
    client.destroy();
    tally.abrupt++;
  },
  /** Open a process extension, start a long call and drop the connection. */
  abruptProcess: async (client, guests, tally) => {
    const sessionId = await open(client, guests.wellBehaved, tally);
    if (sessionId === undefined) return;
    abandon(client, tally, sessionId, 'morphir.backend.generate', { ir: guests.ir, target: 'echo', options: { delayMs: 20_000 } });
    client.destroy();
    tally.abrupt++;
  },
  /** A process extension that exits mid-request: a typed crash error, then session/closed. */
  crash: async (client, guests, tally) => {
    const sessionId = await open(client, guests.crashMidRequest, tally);
    if (sessionId === undefined) return;
    await call(client, tally, sessionId, 'morphir.backend.generate', { ir: guests.ir, target: 'echo', options: {} });
    await close(client, tally, sessionId);
  },
  /** A wasm guest that never returns: its initialize is killed at a short deadline. */
  timeout: async (client, guests, tally) => {
    const sessionId = await open(client, guests.loopWasm, tally, { limits: { callTimeoutMs: 200 } });
    if (sessionId !== undefined) await close(client, tally, sessionId);
  },
  /** A wasm guest that traps on every call. */
  trap: async (client, guests, tally) => {
    const sessionId = await open(client, guests.trapWasm, tally);
    if (sessionId !== undefined) await close(client, tally, sessionId);
  },
  /** A process extension that ignores morphir.exit and SIGTERM: closed by SIGKILL after the grace. */
  hangOnShutdown: async (client, guests, tally) => {
    const sessionId = await open(client, guests.hangOnShutdown, tally);
    if (sessionId === undefined) return;
    await call(client, tally, sessionId, 'morphir.ping');
    await close(client, tally, sessionId);
  },
} satisfies Record<string, Scenario>;

/** One kind of session. */
export type Scenario = (client: SoakClient, guests: SoakGuests, tally: Tally) => Promise<void>;
/** A name from {@link SCENARIOS}. */
export type ScenarioName = keyof typeof SCENARIOS;
/** Scenarios that end with the connection dropped. */
export const ABRUPT: readonly ScenarioName[] = ['abruptWasm', 'abruptProcess'];

async function open(client: SoakClient, extension: string, tally: Tally, runtime?: unknown): Promise<string | undefined> {
  tally.opened++;
  const answer = await client.request('session/open', { extension, ...(runtime ? { runtime } : {}) }).answer;
  tally.record(answer);
  return answer !== 'unanswered' && 'result' in answer ? (answer.result as { sessionId: string }).sessionId : undefined;
}

function call(client: SoakClient, tally: Tally, sessionId: string, method: string, params?: unknown): Promise<Answer> & { id: number } {
  const { id, answer } = client.request('session/call', { sessionId, method, ...(params === undefined ? {} : { params }) });
  tally.calls++;
  return Object.assign(
    answer.then((a) => (tally.record(a), a)),
    { id },
  );
}

/** A call whose answer the client will not wait for (it disconnects). */
function abandon(client: SoakClient, tally: Tally, sessionId: string, method: string, params?: unknown): void {
  void client.request('session/call', { sessionId, method, ...(params === undefined ? {} : { params }) }).answer;
  tally.abandoned++;
}

async function close(client: SoakClient, tally: Tally, sessionId: string): Promise<void> {
  const answer = await client.request('session/close', { sessionId }).answer;
  // A session that ended by itself (crash) is already gone: -32602 for its close is expected.
  tally.record(answer);
}


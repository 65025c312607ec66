/**
 * Drives a served host with many concurrent clients: sessions run in batches (one checkpoint
 * each); within a batch `concurrency` clients take the next session kind from the mix in turn.
 * Between batches every session has ended, so the server is measured after a forced GC at rest;
 * the run stops after `sessions` sessions or `maxMs`, whichever comes first.
 */
import type { ServerSample } from './served-host.ts';
import type { ServedHostHandle } from './server-handle.ts';
import { ABRUPT, SCENARIOS, type ScenarioName, type SoakGuests } from './scenarios.ts';
import { connectSoakClient, type SoakClient } from './soak-client.ts';
import { createTally, type Tally } from './tally.ts';

/** Options of {@link runSoak}. */
export interface SoakOptions {
  host: ServedHostHandle;
  guests: SoakGuests;
  /** Sessions to run in all. */
  sessions: number;
  /** Clients at once. */
  concurrency: number;
  /** Sessions per checkpoint. */
  checkpointEvery: number;
  /** Session kinds in the order they are handed out (repeated). */
  mix: readonly ScenarioName[];
  /** Stop starting sessions after this long. */
  maxMs: number;
  /** Sessions one connection serves before it is closed cleanly and replaced. */
  sessionsPerConnection?: number;
  /** Called after each checkpoint (for progress output). */
  onCheckpoint?(checkpoint: Checkpoint): void;
}

/** The server's state after one batch. */
export interface Checkpoint {
  /** Sessions started so far. */
  sessions: number;
  elapsedMs: number;
  sample: ServerSample;
}

/** Everything a run counted and measured. */
export interface SoakResult {
  tally: Tally;
  checkpoints: Checkpoint[];
  elapsedMs: number;
  /** True when `maxMs` ended the run before `sessions`. */
  timedOut: boolean;
}

/** Runs the soak; see the file comment. */
export async function runSoak(options: SoakOptions): Promise<SoakResult> {
  const tally = createTally();
  const checkpoints: Checkpoint[] = [];
  const perConnection = options.sessionsPerConnection ?? 10;
  const started = performance.now();
  const clients: { client: SoakClient | undefined; used: number }[] = Array.from({ length: options.concurrency }, () => ({ client: undefined, used: 0 }));
  let next = 0;
  let timedOut = false;

  const worker = async (slot: { client: SoakClient | undefined; used: number }, end: number): Promise<void> => {
    while (next < end) {
      if (performance.now() - started > options.maxMs) {
        timedOut = true;
        return;
      }
      const kind = options.mix[next % options.mix.length];
      next++;
      if (slot.client === undefined || slot.used >= perConnection) {
        await slot.client?.close();
        slot.client = await connectSoakClient(options.host.path);
        slot.used = 0;
      }
      slot.used++;
      await SCENARIOS[kind](slot.client, options.guests, tally);
      tally.served++;
      if (ABRUPT.includes(kind)) slot.client = undefined;
    }
  };

  while (next < options.sessions && !timedOut) {
    const end = Math.min(options.sessions, next + options.checkpointEvery);
    await Promise.all(clients.map((slot) => worker(slot, end)));
    const checkpoint = { sessions: next, elapsedMs: performance.now() - started, sample: await settledSample(options.host) };
    checkpoints.push(checkpoint);
    options.onCheckpoint?.(checkpoint);
  }
  await Promise.all(clients.map((slot) => slot.client?.close()));
  return { tally, checkpoints, elapsedMs: performance.now() - started, timedOut };
}

/**
 * A sample once the sessions of dropped connections are closed too (their extensions get a
 * grace period to shut down): polled, at most 10 s, then taken as it is.
 */
async function settledSample(host: ServedHostHandle): Promise<ServerSample> {
  const deadline = performance.now() + 10_000;
  let sample = await host.measure();
  while (sample.sessions > 0 && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    sample = await host.measure();
  }
  return sample;
}

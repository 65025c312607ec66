/**
 * The transport-independent conformance runner: every case against a fresh instance of the
 * extension, whatever carries it (process or wasm). MEP 0.1, Conformance: "The repository should
 * provide a transport-independent conformance suite. It will run the same request fixtures
 * against native and WASM adapters."
 */
import { LocalErrorCode, isMepError } from '../protocol/errors.ts';
import { InitializeResult, Method, decodeResult } from '../protocol/index.ts';
import type { Capabilities } from '../protocol/index.ts';
import { createPeer } from '../rpc/index.ts';
import { setLongTimeout, type CancelTimer } from '../transport/long-timer.ts';
import type { Transport } from '../transport/types.ts';
import type { ConformanceCase } from './case.ts';
import { conformanceFixtures, createCaseContext } from './context.ts';
import { cancellationCases } from './cancellation-cases.ts';
import { lifecycleCases } from './lifecycle-cases.ts';
import { irOperationCases } from './ir-operation-cases.ts';
import { operationCases } from './operation-cases.ts';
import { protocolCases } from './protocol-cases.ts';

/** Every case of the suite, in the order they run. */
export const conformanceCases: readonly ConformanceCase[] = [...lifecycleCases, ...operationCases, ...irOperationCases, ...cancellationCases, ...protocolCases];

/** The outcome of one case. */
export interface CaseResult {
  name: string;
  category: string;
  status: 'passed' | 'failed' | 'skipped';
  /** Why it failed or was skipped. */
  reason?: string;
  durationMs: number;
}

/** Options for {@link runConformance}. */
export interface ConformanceOptions {
  /** Opens a fresh transport to the extension under test; called once per case. */
  open: () => Promise<Transport>;
  /** Per-request timeout inside cases. Default 5 s. */
  requestTimeoutMs?: number;
  /** Whole-case timeout. Default 20 s. */
  caseTimeoutMs?: number;
  /** Runs only the cases whose name contains this text. */
  filter?: string;
  /** The options bag the operation cases send (generate, compile, validate, transform); default `{}`. */
  options?: Record<string, unknown>;
  /** Called after each case, for streaming output. */
  onResult?: (result: CaseResult) => void;
}

/** What the suite learns once before the cases: the advertised capabilities, and whether the wire is stateless. */
interface Probe {
  capabilities: Capabilities | undefined;
  stateless: boolean;
}

/** Why a case that needs a session the client holds is skipped over a stateless transport. */
const STATELESS_SKIP = 'needs a session the client holds; this transport is stateless (HTTP: one request per POST, no session, no notification reaches the extension), and MEP 0.1 leaves its lifecycle to the transport';

/** Reads the advertised capabilities once, so cases can skip what the extension does not offer. */
async function probe(open: () => Promise<Transport>, timeoutMs: number): Promise<Probe> {
  const transport = await open();
  const stateless = transport.stateless === true;
  const peer = createPeer(transport);
  try {
    const raw = await peer.request(Method.Initialize, conformanceFixtures.initialize, { timeoutMs });
    return { capabilities: (decodeResult(InitializeResult, raw, 'the initialize result') as InitializeResult).capabilities, stateless };
  } catch (error) {
    // An extension that cannot even be started (missing, not executable) fails every case the
    // same way: say it once instead.
    if (isMepError(error) && error.code === LocalErrorCode.Usage) throw error;
    // Anything else is reported by name by the initialization cases; here it means "skip nothing".
    return { capabilities: undefined, stateless };
  } finally {
    peer.close();
    await transport.close();
  }
}

function reasonOf(error: unknown): string {
  if (isMepError(error)) return `${String(error.code)}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}

/**
 * Run the suite and return one result per case.
 *
 * @example
 * const results = await runConformance({ open: () => openTransport(spec) });
 * const failed = results.filter((r) => r.status === 'failed');
 */
export async function runConformance(options: ConformanceOptions): Promise<CaseResult[]> {
  const requestTimeoutMs = options.requestTimeoutMs ?? 5_000;
  const caseTimeoutMs = options.caseTimeoutMs ?? 20_000;
  const { capabilities, stateless } = await probe(options.open, requestTimeoutMs);
  const results: CaseResult[] = [];
  for (const c of conformanceCases) {
    if (options.filter && !c.name.includes(options.filter)) continue;
    const started = performance.now();
    const skip = c.needsSession && stateless ? STATELESS_SKIP : c.skip?.(capabilities);
    let result: CaseResult;
    if (skip) {
      result = { name: c.name, category: c.category, status: 'skipped', reason: skip, durationMs: 0 };
    } else {
      result = await runOne(c, options.open, capabilities, requestTimeoutMs, caseTimeoutMs, options.options ?? {});
      result.durationMs = performance.now() - started;
    }
    results.push(result);
    options.onResult?.(result);
  }
  return results;
}

async function runOne(c: ConformanceCase, open: () => Promise<Transport>, capabilities: Capabilities | undefined, requestTimeoutMs: number, caseTimeoutMs: number, bag: Record<string, unknown>): Promise<CaseResult> {
  let transport: Transport | undefined;
  let cancelTimer: CancelTimer | undefined;
  try {
    transport = await open();
    const peer = createPeer(transport);
    const ctx = createCaseContext(transport, peer, capabilities, requestTimeoutMs, bag);
    const timeout = new Promise<never>((_, reject) => {
      cancelTimer = setLongTimeout(() => reject(new Error(`the case did not finish within ${caseTimeoutMs} ms`)), caseTimeoutMs);
    });
    // A transport that dies mid-case (framing error, crash) fails the case with its reason.
    const died = ctx.closed.then((error) => {
      if (error) throw error;
      return new Promise<never>(() => undefined);
    });
    await Promise.race([c.run(ctx), timeout, died]);
    return { name: c.name, category: c.category, status: 'passed', durationMs: 0 };
  } catch (error) {
    return { name: c.name, category: c.category, status: 'failed', reason: reasonOf(error), durationMs: 0 };
  } finally {
    cancelTimer?.();
    await transport?.close();
  }
}

/** Formats results as the CLI prints them: one line a case, then `N passed, N failed`. */
export function formatResultLine(result: CaseResult): string {
  const mark = result.status === 'passed' ? 'pass' : result.status === 'failed' ? 'FAIL' : 'skip';
  const why = result.reason ? ` — ${result.reason}` : '';
  return `${mark}  ${result.category}: ${result.name}${why}`;
}

/** The closing summary line. */
export function formatSummary(results: readonly CaseResult[]): string {
  const passed = results.filter((r) => r.status === 'passed').length;
  const failed = results.filter((r) => r.status === 'failed').length;
  const skipped = results.length - passed - failed;
  return `${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`;
}

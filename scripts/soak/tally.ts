/**
 * What a soak run counted: sessions, calls, answers, and errors by code (with the local code a
 * host-side failure carries in `data.localCode`). A call is fine when it was answered with a
 * result or with a typed error; `-32603` (internal error) or no answer at all is a failure.
 */
import type { Answer } from './soak-client.ts';

/** Counters of a soak run; see {@link createTally}. */
export interface Tally {
  /** `session/open` requests sent. */
  opened: number;
  /** Sessions whose scenario ran to its end (served), over all kinds. */
  served: number;
  /** `session/call` requests sent and waited for. */
  calls: number;
  /** Requests answered with a result. */
  results: number;
  /** Requests answered with an error, by `code` or `code/localCode`. */
  errors: Record<string, number>;
  /** Requests answered -32603 (no typed code) or not at all. */
  untyped: number;
  unanswered: number;
  /** Calls sent and then abandoned by an abrupt disconnect; connections dropped so. */
  abandoned: number;
  abrupt: number;
  /** Answers that were typed but not the expected one (e.g. a cancel not answered -32800). */
  surprises: string[];
  record(answer: Answer): void;
  wrong(what: string): void;
}

/** A zeroed tally. */
export function createTally(): Tally {
  const tally: Tally = {
    opened: 0,
    served: 0,
    calls: 0,
    results: 0,
    errors: {},
    untyped: 0,
    unanswered: 0,
    abandoned: 0,
    abrupt: 0,
    surprises: [],
    record(answer) {
      if (answer === 'unanswered') {
        tally.unanswered++;
        return;
      }
      if ('result' in answer) {
        tally.results++;
        return;
      }
      const error = answer.error as { code?: unknown; data?: { localCode?: unknown } } | undefined;
      const code = typeof error?.code === 'number' ? error.code : 'none';
      const local = typeof error?.data?.localCode === 'string' ? `/${error.data.localCode}` : '';
      const key = `${code}${local}`;
      tally.errors[key] = (tally.errors[key] ?? 0) + 1;
      if (code === 'none' || code === -32603) tally.untyped++;
    },
    wrong(what) {
      if (tally.surprises.length < 20) tally.surprises.push(what);
    },
  };
  return tally;
}

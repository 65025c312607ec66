/**
 * What one run of a test262 test is and how it is judged, the same for every engine.
 */

/** One run of a test: a file in one mode, as an engine gets it. */
export interface EngineRun {
  /** The test's absolute path (module tests resolve their imports against it). */
  file: string;
  /** The test's text, with `"use strict";` in front for a strict run. */
  source: string;
  /** Absolute paths of the harness files evaluated first, as scripts of their own. */
  includes: string[];
  /** Evaluate as a module (flag `module`). */
  module: boolean;
  /** `Atomics.wait` may block (false for flag `CanBlockIsFalse`). */
  canBlock: boolean;
}

/** What an engine did with a run. */
export interface RunOutcome {
  /** An exception reached the top (or a module's evaluation rejected). */
  threw: boolean;
  /** What `print` printed, one line per call. */
  printed: string;
  /** The exception's text ("Name: message"), empty when none. */
  error: string;
  /** The engine process died or trapped. */
  crashed?: boolean;
}

/** How a test expects to end (from its front matter). */
export interface Expectation {
  /** `negative.type`, e.g. SyntaxError, when the test must throw. */
  negative?: string;
  /** Flag `async`: it must print Test262:AsyncTestComplete. */
  async: boolean;
}

/** Whether `outcome` is a pass for a test expecting `e`; a failure is described. */
export function judge(e: Expectation, outcome: RunOutcome): { pass: true } | { pass: false; why: string } {
  if (outcome.crashed) return { pass: false, why: outcome.error };
  if (e.negative !== undefined) {
    if (!outcome.threw) return { pass: false, why: `expected ${e.negative}, nothing was thrown` };
    const name = outcome.error.split(/[:\n]/, 1)[0]!.trim();
    return name === e.negative ? { pass: true } : { pass: false, why: `expected ${e.negative}, got ${firstLine(outcome.error)}` };
  }
  if (outcome.threw) return { pass: false, why: firstLine(outcome.error) };
  if (e.async) {
    const lines = outcome.printed.split('\n');
    const failure = lines.find((l) => l.startsWith('Test262:AsyncTestFailure'));
    if (failure) return { pass: false, why: failure };
    if (!lines.includes('Test262:AsyncTestComplete')) return { pass: false, why: 'the async test never printed Test262:AsyncTestComplete' };
  }
  return { pass: true };
}

const firstLine = (s: string): string => s.split('\n', 1)[0]!.slice(0, 300);

/** The shape of one conformance case. */
import type { Capabilities } from '../protocol/index.ts';
import type { CaseContext } from './context.ts';

/** One named check of MEP 0.1 behaviour, run against a fresh extension instance. */
export interface ConformanceCase {
  /** Printed on the result line; stable, so failures can be named in tests. */
  name: string;
  /** The spec's Phase 0 area: initialization, lifecycle, describe, compile, generate, … */
  category: string;
  /** Returns a reason to skip when the extension does not advertise what the case needs. */
  skip?(capabilities: Capabilities | undefined): string | undefined;
  run(ctx: CaseContext): Promise<void>;
}

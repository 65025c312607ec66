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
  /**
   * True when the case needs a session the client holds (lifecycle state per client,
   * `morphir.exit`, the extension's processes): skipped over a stateless transport
   * (`Transport.stateless`, HTTP), whose lifecycle MEP 0.1 leaves to the transport's specification.
   */
  needsSession?: true;
  run(ctx: CaseContext): Promise<void>;
}

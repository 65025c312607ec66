/**
 * Within one session, the IR a frontend already holds is not sent again. A frontend that keeps
 * what a compile returned says so in that result (`keptModuleIr: true`, a member MEP 0.1 leaves to
 * the frontend); the next baseline sent in the same session then leaves out the `ir` of each
 * module whose entry is the one that very result gave it (compiled, or unchanged with the IR the
 * host had sent) — the entry, its digests and the IR object are those of that result. The
 * frontend reuses a module named without IR only when the digests are the ones it computed for
 * the IR it holds (examples/elm-frontend/src/incremental.ts); otherwise it compiles the module.
 * The full baseline (with every IR) stays the host's: it is what is kept and written.
 */
import type { BaselineModule, CompileBaseline, CompileResult } from '../protocol/index.ts';
import type { Session } from '../session/session.ts';

interface Held {
  contextDigest: string;
  /** Module name → the baseline entry the last result produced for it. */
  modules: Map<string, BaselineModule>;
}

const heldBySession = new WeakMap<Session, Held>();

/**
 * The baseline to send on `session`: `baseline` with the IR left out where the frontend holds it.
 * Forgets what was held: any compile on the session (with a baseline or none) replaces what
 * the frontend keeps, and one that fails to answer leaves nothing to rely on.
 */
export function baselineToSend(session: Session, baseline: CompileBaseline | undefined): CompileBaseline | undefined {
  const held = heldBySession.get(session);
  heldBySession.delete(session);
  if (!baseline || !held || baseline.contextDigest !== held.contextDigest) return baseline;
  let left = 0;
  const modules = baseline.modules.map((m) => {
    const h = held.modules.get(m.name);
    if (h === undefined || m.ir === undefined || h.ir !== m.ir || h.sourceDigest !== m.sourceDigest || h.interfaceDigest !== m.interfaceDigest || h.uri !== m.uri) return m;
    left++;
    const { ir: _ir, ...rest } = m;
    return rest;
  });
  return left === 0 ? baseline : { ...baseline, modules };
}

/** Records, after `result` on `session`, which entries of `next` (the baseline it leads to) the frontend holds. */
export function noteHeldModules(session: Session, result: CompileResult, next: CompileBaseline | undefined): void {
  heldBySession.delete(session);
  if ((result as { keptModuleIr?: unknown }).keptModuleIr !== true || !next || next.contextDigest === undefined || result.contextDigest !== next.contextDigest) return;
  const returned = new Set((result.moduleResults ?? []).filter((r) => r.status === 'compiled' || r.status === 'unchanged').map((r) => r.name));
  const modules = new Map(next.modules.filter((m) => returned.has(m.name) && m.ir !== undefined).map((m) => [m.name, m]));
  heldBySession.set(session, { contextDigest: next.contextDigest, modules });
}

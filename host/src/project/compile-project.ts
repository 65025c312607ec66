/**
 * Compiling a project end to end: one `morphir.frontend.compile` with every source document, and
 * the IR written atomically, only when the compile succeeded (a failed compile writes nothing and
 * leaves an earlier IR file as it was). The CLI (`mep compile <dir>`), the library and `mep serve`
 * (`project/compile`) all go through {@link compileProject}. To a frontend advertising
 * `incremental: true` the request carries the baseline the last compile left
 * (compile-baseline.ts), and the new one is kept; to any other frontend, never.
 */
import { resolve } from 'node:path';
import type { CompileBaseline, CompileResult } from '../protocol/index.ts';
import { acceptsBaseline, frontendKey, nextBaseline, readCompileBaseline, writeCompileBaseline } from './compile-baseline.ts';
import { writeJsonAtomic } from '../registry/atomic-write.ts';
import type { CallOptions, Session } from '../session/session.ts';
import { readMorphirProject, type MorphirProject, type ReadProjectOptions } from './morphir-project.ts';
import { baselineToSend, noteHeldModules } from './session-baseline.ts';

/** Options of {@link compileProject}. */
export interface CompileProjectOptions extends CallOptions, ReadProjectOptions {
  /** Where to write the IR: a path, or `false` to write nothing. Default `<project>/morphir-ir.json`. */
  output?: string | false;
  /** Compile options sent with the request (`typesOnly`, `irVersion`, …). */
  options?: Record<string, unknown>;
  /**
   * The incremental baseline (sent only to a frontend advertising `incremental`): `'project'`
   * reads and keeps the project's `.mep/compile-baseline.json` (the default, unless `output` is
   * false); a baseline object is sent as it is (and the project's file is still kept); `'none'`
   * sends none and keeps none.
   */
  baseline?: 'project' | 'none' | CompileBaseline;
  /**
   * Called once the frontend answered, before the files are written: `mep compile` ends its
   * session there, so the extension stops while the IR is written. The session is not used after.
   */
  whenAnswered?: () => void;
}

/** What {@link compileProject} did. */
export interface ProjectCompileOutcome {
  project: MorphirProject;
  result: CompileResult;
  /** The file the IR was written to, or null when nothing was written. */
  output: string | null;
  /** The baseline for the next compile (undefined when the frontend is not incremental). */
  baseline?: CompileBaseline;
}

/**
 * Reads the project in `dir`, compiles it in `session` and writes the IR.
 *
 * @example
 * const { result, output } = await compileProject(session, 'models/orders');
 * if (!result.success) for (const d of result.diagnostics) console.error(d.message);
 */
export async function compileProject(session: Session, dir: string | MorphirProject, options: CompileProjectOptions = {}): Promise<ProjectCompileOutcome> {
  const project = typeof dir === 'string' ? await readMorphirProject(dir, options) : dir;
  const { signal, timeoutMs, id } = options;
  const withOptions = options.options && Object.keys(options.options).length > 0 ? { ...project.params, options: { ...project.params.options, ...options.options } } : project.params;
  const mode = options.baseline ?? (options.output === false ? 'none' : 'project');
  const key = frontendKey(session.initializeResult);
  const incremental = mode !== 'none' && key !== undefined && acceptsBaseline(session.initializeResult);
  const baseline = !incremental ? undefined : typeof mode === 'object' ? mode : await readCompileBaseline(project.dir, key);
  // Within the session, the IR the frontend holds is not sent again (session-baseline.ts).
  const sent = baselineToSend(session, baseline);
  const params = sent ? { ...withOptions, baseline: sent } : withOptions;
  const result = await session.compile(params, { ...(signal ? { signal } : {}), ...(timeoutMs === undefined ? {} : { timeoutMs }), ...(id === undefined ? {} : { id }) });
  const next = incremental ? (nextBaseline(baseline, result) ?? baseline) : undefined;
  if (incremental) noteHeldModules(session, result, next);
  options.whenAnswered?.();
  // A project folder that cannot take the file (read-only) still compiles: the next one is full.
  // The two files are written at once (each atomically, both awaited): the IR write fails the call.
  const keeping = next && next !== baseline ? writeCompileBaseline(project.dir, key!, next).catch(() => undefined) : undefined;
  const kept = next ? { baseline: next } : {};
  const target = options.output === false ? null : resolve(project.dir, options.output ?? project.defaultOutput);
  const writes = target === null || !result.success || result.ir === undefined || result.ir === null ? undefined : writeJsonAtomic(target, result.ir);
  // Both settle before the call does (a failed IR write still leaves no baseline write in flight).
  const [, written] = await Promise.allSettled([keeping, writes]);
  if (written.status === 'rejected') throw written.reason;
  return { project, result, output: writes ? target : null, ...kept };
}

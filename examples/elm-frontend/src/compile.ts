/**
 * `morphir.frontend.compile` for Elm: the request's documents are placed in their package
 * (package-layout.ts), compiled by morphir-elm's own compiler (elm-worker.ts) exactly as the
 * default `morphir-elm make` compiles a project, and the outcome is returned as MEP 0.1 wants it:
 * the IR (v3, or v4 converted from it) with the visibility the request asked for, or the errors as
 * located diagnostics and no IR.
 */
import type { CompileAnswer, AuthorDiagnostic, HandlerContext, NormalizedCompileParams } from '../../../guest-pdk/src/index.ts';
import { ErrorCode, MepError } from '../../../host/src/protocol/errors.ts';
import { convertV3ToV4 } from '../../avro/src/v3-to-v4.ts';
import { ELM_CODES, elmDiagnostic } from './diagnostic.ts';
import { pathFromJson } from './elm-names.ts';
import type { ElmBuildInput, ElmWorker } from './elm-worker.ts';
import { buildModules, finishModules, rememberAnswer, type ModulesOutcome } from './incremental.ts';
import { contextDigestOf, moduleGraph } from './module-graph.ts';
import { layoutPackage, type PackageLayout } from './package-layout.ts';
import { applyExposure, irModules, planExposure } from './visibility.ts';
import { workerErrorDiagnostics } from './worker-errors.ts';

/** The IR versions this frontend writes; 4 is converted from 3. */
export const ELM_IR_VERSIONS = ['3', '4'] as const;

function invalid(message: string, data: Record<string, unknown>): never {
  throw new MepError(ErrorCode.InvalidParams, `Invalid params for morphir.frontend.compile: ${message}`, { data });
}

/** The inline dependencies as distributions morphir-elm reads (IR v3 only). */
function dependencyDistributions(params: NormalizedCompileParams): unknown[] {
  return (params.dependencies ?? []).map((d) => {
    const version = (d.distribution as { formatVersion?: unknown }).formatVersion;
    if (d.irVersion !== '3' || (version !== 3 && version !== '3' && version !== '3.0.0')) {
      invalid(`dependency ${d.packageName} is Morphir IR ${d.irVersion} (formatVersion ${JSON.stringify(version)}); morphir-elm reads IR 3 dependencies: send its v3 distribution.`, { dependency: d.packageName });
    }
    return d.distribution;
  });
}

function checkRequest(params: NormalizedCompileParams): '3' | '4' {
  if (params.languageId !== 'elm') invalid(`languageId '${params.languageId}' is not elm; this frontend compiles Elm only.`, { languageId: params.languageId });
  for (const d of params.sources.documents) {
    if (d.languageId !== 'elm') invalid(`document ${d.uri} is '${d.languageId}', not elm.`, { uri: d.uri, languageId: d.languageId });
  }
  const irVersion = params.options?.irVersion ?? '3';
  if (irVersion !== '3' && irVersion !== '4') invalid(`options.irVersion '${irVersion}' is not one of ${ELM_IR_VERSIONS.join(', ')}.`, { irVersion });
  const typesOnly = params.options?.typesOnly;
  if (typesOnly !== undefined && typeof typesOnly !== 'boolean') invalid('options.typesOnly must be true or false.', { typesOnly });
  return irVersion;
}

/** The names of the IR's modules relative to the package, the way the documents spell them. */
function moduleNames(ir: Record<string, unknown>, layout: PackageLayout): string[] {
  return irModules(ir).map(([path]) => {
    const p = pathFromJson(path) ?? [];
    const placed = layout.byPath(p);
    return placed?.compiledName ? placed.compiledName.split('.').slice(layout.packagePath.length).join('.') : p.map((n) => n.join('-')).join('.');
  });
}

/** Counts the values whose bodies the v4 conversion leaves out. */
function valueCount(ir: Record<string, unknown>): number {
  return irModules(ir).reduce((n, [, m]) => n + (((m as { value?: { values?: unknown[] } }).value?.values ?? []).length), 0);
}

/**
 * Compiles one request on `worker`.
 *
 * @example
 * const answer = compileElm(params, worker, ctx);
 */
export function compileElm(params: NormalizedCompileParams, worker: ElmWorker, ctx: HandlerContext): CompileAnswer | Promise<CompileAnswer> {
  const irVersion = checkRequest(params);
  const layout = layoutPackage(params);
  const plan = planExposure(params.package, layout);
  const before: AuthorDiagnostic[] = [...layout.diagnostics, ...plan.diagnostics];
  const failed = (diagnostics: AuthorDiagnostic[]): CompileAnswer => ({ success: false, irVersion, ir: null, modules: [], diagnostics });
  if (before.some((d) => d.severity === 'error')) return failed(before);
  const input: ElmBuildInput = {
    options: { typesOnly: params.options?.typesOnly === true },
    packageInfo: plan.exposedModules === undefined ? { name: params.package.name } : { name: params.package.name, exposedModules: plan.exposedModules },
    dependencies: dependencyDistributions(params),
    fileSnapshot: layout.fileSnapshot,
  };
  const graph = moduleGraph(layout);
  const contextDigest = contextDigestOf(params, layout, irVersion);
  ctx.progress('begin', `Compiling ${layout.modules.length} Elm module${layout.modules.length === 1 ? '' : 's'}`, 0);
  const finish = (outcome: ModulesOutcome): CompileAnswer => {
    ctx.progress('end', outcome.kind === 'built' ? 'Compiled' : 'Compilation failed', 100);
    if (outcome.kind === 'rejected') {
      throw new MepError(ErrorCode.InternalError, `morphir-elm refused the frontend's build input (${outcome.message}); this is a defect of the Elm frontend, please report it.`, { data: { decodeError: outcome.message } });
    }
    if (outcome.kind === 'failed') return failed([...before, ...workerErrorDiagnostics(outcome.errors, layout)]);
    const ir = outcome.distribution;
    const diagnostics = [...before, ...outcome.diagnostics, ...applyExposure(ir, plan, layout)];
    const moduleResults = finishModules(ir, outcome, graph);
    const modules = moduleNames(ir, layout);
    const success = !diagnostics.some((d) => d.severity === 'error');
    // Kept for this session: a next baseline may name these modules without their IR.
    const kept = rememberAnswer(worker, contextDigest, moduleResults, ir, graph);
    const incremental = { success, moduleResults, contextDigest, ...(kept ? { keptModuleIr: true } : {}) };
    if (irVersion === '3') return { irVersion, ir, modules, diagnostics, ...incremental };
    const values = valueCount(ir);
    if (values > 0) {
      diagnostics.push(elmDiagnostic('warning', ELM_CODES.v4Bodies, `IR v4 is converted from morphir-elm's v3: types and value signatures are complete, but the bodies of ${values} value${values === 1 ? '' : 's'} are holes. Ask for IR 3 to keep them.`));
    }
    return { irVersion, ir: convertV3ToV4(ir, 'wrapped') as Record<string, unknown>, modules, diagnostics, ...incremental };
  };
  let outcome: ModulesOutcome | Promise<ModulesOutcome>;
  try {
    // Per module: the cancellation is checked (a cancelled compile stops here and answers
    // -32800; the worker starts afresh for the next build) and progress is reported.
    let done = 0;
    const total = Math.max(1, layout.modules.length);
    outcome = buildModules(
      worker,
      input,
      layout,
      graph,
      params.baseline,
      contextDigest,
      (message) => ctx.progress('report', message.split('\n')[0]),
      (moduleName) => {
        ctx.throwIfCancelled();
        ctx.progress('report', `Compiling ${moduleName} (${Math.min(++done, total)}/${total} modules)`, Math.min(95, 5 + Math.floor((90 * (done - 1)) / total)));
      },
    );
  } catch (error) {
    if (!isStackOverflow(error)) throw error;
    // A source nested deeper than the engine's stack: the sources' fault, and the worker restarts.
    return failed([...before, elmDiagnostic('error', ELM_CODES.compiler, 'morphir-elm ran out of stack compiling these sources: an expression, pattern or type is nested too deeply. Split it into smaller definitions.')]);
  }
  return outcome instanceof Promise ? outcome.then(finish) : finish(outcome);
}

/** V8's and QuickJS's stack overflow (an interrupt at a deadline is neither). */
function isStackOverflow(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return (error instanceof RangeError && /call stack/i.test(error.message)) || (error.name === 'InternalError' && /stack overflow/i.test(error.message));
}

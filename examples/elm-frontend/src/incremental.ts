/**
 * Incremental compiles (MEP 0.1, `baseline` → `moduleResults`): with a baseline computed in the
 * same context (`contextDigest`), only the modules whose source changed are compiled, by
 * morphir-elm's own `buildIncrementally` (the kept modules' IR in, the changed sources inserted
 * into it), and then the modules that depend on one whose interface changed, in a second build.
 * morphir-elm recomputes exposure and unused modules over the whole package on every build, so the
 * merged IR equals a full build's. A module that fails is compiled no further: the others are
 * built again against its baseline IR (left out of the result), or, when it has none, without it
 * and the modules that import it (`blocked`). Without a usable baseline it is one full build.
 */
import type { AuthorDiagnostic } from '../../../guest-pdk/src/index.ts';
import type { CompileBaseline, ModuleResult } from '../../../host/src/protocol/index.ts';
import type { ElmBuildInput, ElmBuildOutcome, ElmWorker } from './elm-worker.ts';
import { pathFromJson, pathKey, pathFromString } from './elm-names.ts';
import { interfaceDigestOf, moduleEntryFor, type ModuleEntry, type ModuleGraph } from './module-graph.ts';
import type { PackageLayout } from './package-layout.ts';
import { workerErrorDiagnostics } from './worker-errors.ts';

/** A baseline module this compile may reuse. */
interface Trusted {
  entry: ModuleEntry;
  sourceDigest: string;
  interfaceDigest: string;
}

/** How the package's modules were built. */
export type ModulesOutcome =
  | Exclude<ElmBuildOutcome, { kind: 'built' }>
  | {
      kind: 'built';
      /** The merged distribution, failed modules' baseline IR still in it (see {@link finishModules}). */
      distribution: Record<string, unknown>;
      /** Modules compiled in this call (every module without a usable baseline). */
      compiled: Set<string>;
      failed: Map<string, AuthorDiagnostic[]>;
      blocked: Set<string>;
      /** Every diagnostic of the failed builds. */
      diagnostics: AuthorDiagnostic[];
      /** The interface digest of each module built or reused. */
      interfaces: Map<string, string>;
    };

const then = <T, U>(value: T | Promise<T>, next: (value: T) => U | Promise<U>): U | Promise<U> => (value instanceof Promise ? value.then(next) : next(value));

/** The module entries of a v3 distribution's package definition. */
function entriesOf(distribution: Record<string, unknown>): ModuleEntry[] {
  const definition = (distribution.distribution as unknown[] | undefined)?.[3] as { modules?: unknown } | undefined;
  return Array.isArray(definition?.modules) ? (definition!.modules as ModuleEntry[]) : [];
}

/** A module a compile answered (compiled or unchanged): the digests this frontend computed for it and its IR. */
interface Held {
  sourceDigest: string;
  interfaceDigest: string;
  entry: ModuleEntry;
}

/**
 * Per kept build of a worker (the object {@link ElmWorker.lastBuilt} returns, which a next build
 * replaces): what the compile that ended with it answered per module. A baseline entry without
 * `ir` in the same session is reused from here, and only when its digests are the ones this
 * frontend computed for what it holds.
 */
const heldByBuild = new WeakMap<object, Map<string, Held>>();

/**
 * Remembers what a compile answered (`results`, the IR `ir`) for the build the worker kept under
 * `contextDigest`; nothing when it kept none (a failed build) or under another context. True
 * when remembered: the answer then says so (`keptModuleIr`), and the host may leave these
 * modules' IR out of the next baseline it sends in this session.
 */
export function rememberAnswer(worker: ElmWorker, contextDigest: string, results: ModuleResult[], ir: Record<string, unknown>, graph: ModuleGraph): boolean {
  const last = worker.lastBuilt();
  if (!last || last.context !== contextDigest) return false;
  const byPath = new Map(entriesOf(ir).map((e) => [pathKey(pathFromJson(e[0]) ?? []), e]));
  const held = new Map<string, Held>();
  for (const r of results) {
    const entry = byPath.get(pathKey(graph.get(r.name)?.placed.path ?? []));
    if ((r.status !== 'compiled' && r.status !== 'unchanged') || !entry || typeof r.sourceDigest !== 'string' || typeof r.interfaceDigest !== 'string') continue;
    held.set(r.name, { sourceDigest: r.sourceDigest, interfaceDigest: r.interfaceDigest, entry });
  }
  heldByBuild.set(last, held);
  return true;
}

/** The baseline entries that match this request's modules, when the baseline's context is this one's. */
function trustedModules(worker: ElmWorker, baseline: CompileBaseline | undefined, contextDigest: string, graph: ModuleGraph): Map<string, Trusted> {
  const out = new Map<string, Trusted>();
  if (!baseline || baseline.contextDigest !== contextDigest) return out;
  const last = worker.lastBuilt();
  const held = last && last.context === contextDigest ? heldByBuild.get(last) : undefined;
  for (const b of baseline.modules) {
    const m = graph.get(b.name);
    if (!m || (b.uri !== undefined && b.uri !== m.placed.document.uri) || typeof b.sourceDigest !== 'string' || typeof b.interfaceDigest !== 'string') continue;
    // No IR sent: what this session's last compile answered for it, when the baseline's digests
    // are the ones computed here for that very IR; otherwise the module is compiled.
    const h = b.ir === undefined ? held?.get(b.name) : undefined;
    if (b.ir === undefined && (!h || h.sourceDigest !== b.sourceDigest || h.interfaceDigest !== b.interfaceDigest)) continue;
    const entry = moduleEntryFor(h ? h.entry : b.ir, m.placed);
    if (entry) out.set(b.name, { entry, sourceDigest: b.sourceDigest, interfaceDigest: b.interfaceDigest });
  }
  return out;
}

/** True when `a` and `b` are the same JSON value. */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) if (!Object.hasOwn(b, k) || !sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  return true;
}

/**
 * The access of each module of `modules` by path (as JSON), when the worker kept the repository
 * of its last build under `contextDigest` and that build returned, for each of them, the very IR
 * `modules` holds (a baseline from another session, an older compile, a failed module's
 * baseline IR that the last build did not hold: undefined, and the build decodes `modules`).
 */
function reusable(worker: ElmWorker, contextDigest: string, modules: ModuleEntry[]): Record<string, 'Public' | 'Private'> | undefined {
  const last = worker.lastBuilt();
  if (!last || last.context !== contextDigest) return undefined;
  const built = new Map(entriesOf(last.distribution).map((e) => [JSON.stringify(pathFromJson(e[0]) ?? null), e]));
  const access: Record<string, 'Public' | 'Private'> = {};
  for (const entry of modules) {
    const key = JSON.stringify(pathFromJson(entry[0]) ?? null);
    const had = built.get(key);
    if (!had || !sameJson(had[1].value, entry[1].value)) return undefined;
    access[key] = entry[1].access === 'Public' ? 'Public' : 'Private';
  }
  return access;
}

/**
 * Builds the package of `input` on `worker`, reusing what `baseline` holds when its
 * `contextDigest` is `contextDigest`.
 */
export function buildModules(
  worker: ElmWorker,
  input: ElmBuildInput,
  layout: PackageLayout,
  graph: ModuleGraph,
  baseline: CompileBaseline | undefined,
  contextDigest: string,
  onProgress: (message: string) => void,
  onModule?: (moduleName: string) => void,
): ModulesOutcome | Promise<ModulesOutcome> {
  const trusted = trustedModules(worker, baseline, contextDigest, graph);
  const interfaces = new Map<string, string>([...trusted].map(([name, t]) => [name, t.interfaceDigest]));
  const compiled = new Set<string>();
  const failed = new Map<string, AuthorDiagnostic[]>();
  const blocked = new Set<string>();
  const diagnostics: AuthorDiagnostic[] = [];
  const record = (distribution: Record<string, unknown>, built: Iterable<string>): Set<string> => {
    const byPath = new Map(entriesOf(distribution).map((e) => [pathKey(pathFromJson(e[0]) ?? []), e]));
    const changed = new Set<string>();
    for (const name of built) {
      compiled.add(name);
      const entry = byPath.get(pathKey(graph.get(name)!.placed.path!));
      const digest = entry ? interfaceDigestOf(entry) : undefined;
      if (digest === undefined || digest !== interfaces.get(name)) changed.add(name);
      if (digest === undefined) interfaces.delete(name);
      else interfaces.set(name, digest);
    }
    return changed;
  };
  const done = (distribution: Record<string, unknown>): ModulesOutcome => ({ kind: 'built', distribution, compiled, failed, blocked, diagnostics, interfaces });

  if (trusted.size === 0) {
    return then(worker.build({ ...input, context: contextDigest }, onProgress, onModule), (outcome) => {
      if (outcome.kind !== 'built') return outcome;
      record(outcome.distribution, graph.keys());
      return done(outcome.distribution);
    });
  }

  // Morphir-elm decides access again on every build: kept modules start as a fresh insert would.
  const exposed = input.packageInfo.exposedModules === undefined ? undefined : new Set(input.packageInfo.exposedModules.map((n) => pathKey(pathFromString(n))));
  const fresh = (entry: ModuleEntry): ModuleEntry => [entry[0], { ...entry[1], access: exposed === undefined || exposed.has(pathKey(pathFromJson(entry[0]) ?? [])) ? 'Public' : 'Private' }];
  const kept = new Map<string, ModuleEntry>();
  const recompile = new Set<string>();
  for (const [name, m] of graph) {
    const t = trusted.get(name);
    if (!t || t.sourceDigest !== m.sourceDigest || m.dependsOn.some((d) => !graph.has(d))) recompile.add(name);
    else kept.set(name, t.entry);
  }

  const round = (): ModulesOutcome | Promise<ModulesOutcome> => {
    const fileChanges: Record<string, ['Insert', string]> = {};
    for (const name of recompile) fileChanges[graph.get(name)!.placed.key] = ['Insert', layout.fileSnapshot[graph.get(name)!.placed.key]];
    const { options, packageInfo, dependencies } = input;
    const modules = [...kept.values()].map(fresh);
    // The worker's last repository, when it holds exactly these modules' IR: nothing to decode.
    const reuse = reusable(worker, contextDigest, modules);
    const distribution = { formatVersion: 3, distribution: ['Library', layout.packagePath, [], { modules: reuse ? [] : modules }] };
    return then(worker.build({ options, packageInfo, dependencies, fileChanges, distribution, context: contextDigest, reuse }, onProgress, onModule), (outcome): ModulesOutcome | Promise<ModulesOutcome> => {
      if (outcome.kind === 'rejected') return outcome;
      if (outcome.kind === 'failed') {
        if (recompile.size === 0) return outcome;
        const found = workerErrorDiagnostics(outcome.errors, layout);
        diagnostics.push(...found);
        const errorsOf = (name: string) => found.filter((d) => d.severity === 'error' && d.location?.uri === graph.get(name)!.placed.document.uri);
        let broken = [...recompile].filter((name) => errorsOf(name).length > 0);
        // An error that names no module being compiled (a cycle through several): all of them failed.
        if (broken.length === 0) broken = [...recompile];
        const gone = new Set<string>();
        for (const name of broken) {
          failed.set(name, errorsOf(name));
          recompile.delete(name);
          const t = trusted.get(name);
          // Its baseline interface lets the modules that import it compile; its IR is left out at the end.
          if (t && !kept.has(name)) kept.set(name, t.entry);
          if (!t) gone.add(name);
        }
        for (const [name, m] of graph) {
          if (failed.has(name) || !m.dependsOn.some((d) => gone.has(d) || blocked.has(d))) continue;
          blocked.add(name);
          recompile.delete(name);
          kept.delete(name);
        }
        return round();
      }
      const changed = record(outcome.distribution, recompile);
      const next = [...graph.values()].filter((m) => !compiled.has(m.name) && !failed.has(m.name) && !blocked.has(m.name) && m.dependsOn.some((d) => changed.has(d)));
      if (next.length === 0) return done(outcome.distribution);
      // Dependents of a changed interface: compiled again against this build's IR.
      recompile.clear();
      kept.clear();
      const again = new Set(next.map((m) => pathKey(m.placed.path!)));
      const names = new Map([...graph.values()].map((m) => [pathKey(m.placed.path!), m.name]));
      for (const entry of entriesOf(outcome.distribution)) {
        const key = pathKey(pathFromJson(entry[0]) ?? []);
        const name = names.get(key);
        if (name !== undefined && !again.has(key)) kept.set(name, entry);
      }
      for (const m of next) recompile.add(m.name);
      return round();
    });
  };
  return round();
}

/**
 * Per-module results of `outcome` against the final IR `ir` (exposure applied), and the IR with
 * the failed modules' baseline IR taken out (in place).
 */
export function finishModules(ir: Record<string, unknown>, outcome: Extract<ModulesOutcome, { kind: 'built' }>, graph: ModuleGraph): ModuleResult[] {
  const modules = entriesOf(ir);
  const byPath = new Map(modules.map((e) => [pathKey(pathFromJson(e[0]) ?? []), e]));
  const results: ModuleResult[] = [];
  for (const m of graph.values()) {
    const base = { name: m.name, uri: m.placed.document.uri, sourceDigest: m.sourceDigest, dependsOn: m.dependsOn };
    const entry = byPath.get(pathKey(m.placed.path!));
    if (outcome.failed.has(m.name)) results.push({ ...base, status: 'failed', diagnostics: outcome.failed.get(m.name)! as ModuleResult['diagnostics'] });
    else if (outcome.blocked.has(m.name)) results.push({ ...base, status: 'blocked' });
    else if (!entry) continue;
    else if (outcome.compiled.has(m.name)) results.push({ ...base, status: 'compiled', interfaceDigest: outcome.interfaces.get(m.name)!, ir: entry, diagnostics: [] });
    else results.push({ ...base, status: 'unchanged', interfaceDigest: outcome.interfaces.get(m.name)! });
  }
  if (outcome.failed.size > 0) {
    const out = new Set([...outcome.failed.keys()].map((name) => pathKey(graph.get(name)!.placed.path!)));
    const definition = (ir.distribution as unknown[])[3] as { modules: ModuleEntry[] };
    definition.modules = modules.filter((e) => !out.has(pathKey(pathFromJson(e[0]) ?? [])));
  }
  return results;
}

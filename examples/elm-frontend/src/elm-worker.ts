/**
 * morphir-elm's compiler, as the default `morphir-elm make` runs it: the compiled Elm worker of
 * the npm package's `cli2/` (its text: morphir-elm-source.ts), edited (elm-patches.ts) and
 * evaluated with the timers and console it is given instead of globals. {@link createElmWorker}
 * drives one build through its ports the way morphir-elm's own CLI does (`buildFromScratch` in;
 * `buildCompleted`, `buildFailed` or `decodeFailed` out).
 */
import { patchElmWorker } from './elm-patches.ts';
import type { TimerSource } from './timer-queue.ts';

/** What the Elm runtime may print (its `Debug.log` and DEV-mode warning). */
export interface ElmConsole {
  log(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/** The worker's input: what morphir-elm's CLI sends on `buildFromScratch`. */
export interface ElmBuildInput {
  options: { typesOnly: boolean };
  /** morphir.json's `name` and `exposedModules` (absent: every module is public). */
  packageInfo: { name: string; exposedModules?: string[] };
  /** Morphir IR distributions of other packages. */
  dependencies: unknown[];
  /** Path → source text; only paths ending in `.elm` are read. */
  fileSnapshot: Record<string, string>;
  /** What the build's repository is kept under (the context digest): see {@link ElmWorker.lastBuilt}. */
  context?: string;
}

/**
 * An incremental build (morphir-elm's `buildIncrementally`): the IR of the modules kept from an
 * earlier build, and the sources of the modules to compile again, inserted into it.
 */
export interface ElmIncrementalInput {
  options: { typesOnly: boolean };
  packageInfo: { name: string; exposedModules?: string[] };
  dependencies: unknown[];
  /** Path → `['Insert', source text]` for each module compiled in this build. */
  fileChanges: Record<string, ['Insert', string]>;
  /** A v3 distribution of the package holding only the kept modules. */
  distribution: unknown;
  context?: string;
  /**
   * Instead of `distribution`'s modules: the modules of the last build's repository (when it was
   * kept under the same `context`), each key (a module path as JSON, `[["m","0","5","9"]]`) with
   * the access it starts with. The caller checks that they are the modules it would send
   * (see {@link ElmWorker.lastBuilt}); without a kept repository the build reads `distribution`.
   */
  reuse?: Record<string, 'Public' | 'Private'>;
}

/** How one build ended. */
export type ElmBuildOutcome =
  | { kind: 'built'; distribution: Record<string, unknown> }
  | { kind: 'failed'; errors: unknown[] }
  | { kind: 'rejected'; message: string };

/** One build at a time on a compiled Elm worker. */
export interface ElmWorker {
  /**
   * Runs one build; `onModule` is called with each module's dotted name as the compiler starts
   * on it (what it throws ends the build). Synchronous with a timer source that runs itself (`runUntil`); a promise with
   * a platform's timers. Throws when the Elm code throws (the worker is replaced for the next
   * build) or stops without an answer.
   */
  build(input: ElmBuildInput | ElmIncrementalInput, onProgress?: (message: string) => void, onModule?: (moduleName: string) => void): ElmBuildOutcome | Promise<ElmBuildOutcome>;
  /**
   * The last build's `context` and the distribution it returned, when that build succeeded and
   * its repository is kept for `reuse` (a build that fails, throws or is interrupted keeps none).
   */
  lastBuilt(): { context: string | undefined; distribution: Record<string, unknown> } | undefined;
}

/** Between the worker and its `repo-stash` edit (elm-patches.ts): the repository kept, the plan to reuse it. */
interface RepoStash {
  repo?: unknown;
  plan?: { repo: unknown; access: Record<string, 'Public' | 'Private'> };
  /** The last repository rebuilt from kept modules, and what it was built from (the edit remembers it). */
  rebuilt?: unknown;
  /** Tests only: called with the repository an incremental build starts from and the one a rebuild from the kept modules gives. */
  check?: (started: unknown, rebuilt: unknown) => void;
}

interface Port<T> {
  subscribe(listener: (value: T) => void): void;
}

interface Ports {
  buildFromScratch: { send(value: unknown): void };
  buildIncrementally: { send(value: unknown): void };
  buildCompleted: Port<[unknown, unknown]>;
  buildFailed: Port<unknown>;
  decodeFailed: Port<string>;
  reportProgress: Port<string>;
}

type ElmScope = { Elm?: { Morphir: { Elm: { CLI: { init(): { ports: Ports } } } } } };

/** morphir-elm's worker code, parsed: each call defines a fresh Elm runtime. */
export type ElmWorkerCode = (this: ElmScope, setTimeout: TimerSource['setTimeout'], clearTimeout: TimerSource['clearTimeout'], console: ElmConsole, moduleStep: (moduleName: unknown) => void, repoStash: RepoStash) => void;

type ElmList = { a?: unknown; b?: unknown } | undefined;

/** The members of an Elm list (at most 64). */
function elmList(list: unknown): unknown[] {
  const out: unknown[] = [];
  for (let l = list as ElmList; l && l.b !== undefined && out.length < 64; l = l.b as ElmList) out.push(l.a);
  return out;
}

/** A module name as dotted text: an Elm `List String`, or a Morphir path (a list of names, each a list of words). */
function moduleNameText(name: unknown): string {
  const part = (p: unknown): string =>
    typeof p === 'string' ? p : elmList(p).map((w) => (typeof w === 'string' ? w.charAt(0).toUpperCase() + w.slice(1) : '?')).join('');
  return elmList(name).map(part).join('.');
}

/**
 * Edits and parses the worker's source once (2 MB of JavaScript: in the wasm build this happens
 * before the snapshot). `version` is morphir-elm's, checked against the edits.
 */
export function compileElmWorker(source: string, version: string): ElmWorkerCode {
  // "use strip": the engine keeps no copy of each function's source text (build/engine/patches/
  // strip-source.ts; without it the 2 MB text stayed three times in the snapshot). V8 ignores it.
  return new Function('setTimeout', 'clearTimeout', 'console', 'moduleStep', 'repoStash', `"use strip";\n${patchElmWorker(source, version)}`) as ElmWorkerCode;
}

/**
 * Starts morphir-elm's compiler on `timers` (see timer-queue.ts), printing to `console`.
 *
 * @example
 * const worker = createElmWorker(compileElmWorker(source, '2.82.0'), createTimerQueue(), quietConsole);
 * const outcome = worker.build({ options: { typesOnly: false }, packageInfo: { name: 'Acme' }, dependencies: [], fileSnapshot });
 */
export function createElmWorker(code: ElmWorkerCode, timers: TimerSource, console: ElmConsole): ElmWorker {
  let current: ((outcome: ElmBuildOutcome) => void) | undefined;
  let progress: ((message: string) => void) | undefined;
  let moduleStep: ((moduleName: string) => void) | undefined;
  let stash: RepoStash = {};
  let last: { context: string | undefined; distribution: Record<string, unknown> } | undefined;
  const settle = (outcome: ElmBuildOutcome): void => {
    const deliver = current;
    current = undefined;
    deliver?.(outcome);
  };

  const start = (): Ports => {
    const scope: ElmScope = {};
    // A new runtime keeps nothing of the last one's.
    stash = {};
    last = undefined;
    code.call(scope, timers.setTimeout, timers.clearTimeout, console, (name) => moduleStep?.(moduleNameText(name)), stash);
    const app = scope.Elm?.Morphir.Elm.CLI.init();
    if (!app) throw new Error('elm-frontend: morphir-elm\'s worker did not export Elm.Morphir.Elm.CLI');
    const ports = app.ports;
    ports.buildCompleted.subscribe(([errors, distribution]) => {
      if (errors !== null && errors !== undefined) settle({ kind: 'failed', errors: Array.isArray(errors) ? errors : [errors] });
      else settle({ kind: 'built', distribution: distribution as Record<string, unknown> });
    });
    ports.buildFailed.subscribe((errors) => settle({ kind: 'failed', errors: Array.isArray(errors) ? errors : [errors] }));
    ports.decodeFailed.subscribe((message) => settle({ kind: 'rejected', message: String(message) }));
    ports.reportProgress.subscribe((message) => progress?.(String(message)));
    // The runtime's start-up timers (one per outgoing port) run now, not inside the first build.
    timers.runUntil?.(() => false);
    return ports;
  };
  let ports: Ports | undefined = start();

  return {
    lastBuilt: () => last,
    build(input, onProgress, onModule) {
      if (current && timers.runUntil) {
        // A build that never returned: the sandbox interrupted it (a cancellation or deadline
        // stops the guest without running its catch blocks). Its runtime and timers go.
        ports = undefined;
        current = undefined;
        timers.clear?.();
      }
      if (current) throw new Error('elm-frontend: a build is already running on this worker');
      const live = (ports ??= start());
      // The kept repository serves this build at most (when asked and kept under the same
      // context); whatever way this build ends, only its own success keeps one again.
      const reuse = 'reuse' in input && input.reuse !== undefined && last !== undefined && stash.repo !== undefined && last.context === input.context ? input.reuse : undefined;
      stash.plan = reuse ? { repo: stash.repo, access: reuse } : undefined;
      stash.repo = undefined;
      last = undefined;
      let outcome: ElmBuildOutcome | undefined;
      const answered = new Promise<ElmBuildOutcome>((resolve) => {
        current = (o) => {
          outcome = o;
          stash.plan = undefined;
          if (o.kind === 'built' && stash.repo !== undefined) last = { context: input.context, distribution: o.distribution };
          else stash.repo = undefined;
          resolve(o);
        };
      });
      progress = onProgress;
      moduleStep = onModule;
      try {
        if ('fileChanges' in input) live.buildIncrementally.send(input);
        else live.buildFromScratch.send(input);
        if (timers.runUntil) {
          timers.runUntil(() => outcome !== undefined);
          if (outcome === undefined) throw new Error('elm-frontend: morphir-elm\'s worker stopped without answering the build');
          return outcome;
        }
      } catch (error) {
        // An exception inside the Elm runtime leaves its scheduler mid-step: never reuse it.
        ports = undefined;
        current = undefined;
        timers.clear?.();
        throw error;
      } finally {
        if (timers.runUntil) progress = moduleStep = undefined;
      }
      return answered.finally(() => {
        progress = moduleStep = undefined;
      });
    },
  };
}

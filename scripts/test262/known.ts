/**
 * What the test262 harness cannot do, each with its reason: the only differences between the
 * sandbox and the native engine the differential accepts. Everything else must give the same
 * result in the sandbox as natively.
 */
import type { TestRun } from './suite.ts';

/** One documented limit: which runs it covers and why. */
export interface HarnessLimit {
  id: string;
  reason: string;
  /** True for a run the limit covers. */
  covers(run: TestRun): boolean;
}

const uses = (run: TestRun, text: string): boolean => run.source.includes(text) || run.meta.includes.some((i) => i.includes(text));

/** Tests no runner here can run, natively or in the sandbox: they are counted, not run. */
export const NOT_RUN: readonly HarnessLimit[] = [
  {
    id: 'agents',
    reason: '$262.agent needs other threads that share memory with the test (Atomics.wait/notify between agents); neither runner starts agents',
    covers: (run) => uses(run, '$262.agent') || run.meta.includes.includes('atomicsHelper.js') && run.source.includes('agent'),
  },
];

/** What the sandbox cannot do that a native host can: run natively, not in the sandbox. */
export const SANDBOX_LIMITS: readonly HarnessLimit[] = [
  {
    id: 'modules',
    reason: 'a guest is one bundled script: the engine loads no modules at run time (esbuild resolves imports at build time), so module tests and their imports cannot run',
    covers: (run) => run.module || uses(run, 'import(') || run.meta.flags.includes('module'),
  },
  {
    id: 'realms',
    reason: '$262.createRealm needs a second global environment, which only the embedder (C) can create; the guest has exactly one',
    covers: (run) => uses(run, 'createRealm') || run.meta.features.includes('cross-realm'),
  },
  {
    id: 'evalScript',
    reason: '$262.evalScript must evaluate a separate Script in the global scope; a guest only has indirect eval, whose let/const/class stay in the eval',
    covers: (run) => uses(run, '$262.evalScript'),
  },
  {
    id: 'IsHTMLDDA',
    reason: 'the [[IsHTMLDDA]] object (document.all) is made by the embedder (JS_SetIsHTMLDDA); no guest code can make one',
    covers: (run) => run.meta.features.includes('IsHTMLDDA') || uses(run, 'IsHTMLDDA'),
  },
  {
    id: 'gc',
    reason: '$262.gc asks the embedder for a collection; a guest cannot',
    covers: (run) => uses(run, '$262.gc'),
  },
  {
    id: 'sourceText',
    reason: "a guest's bytecode carries no function source text (compile-src writes it with JS_WRITE_OBJ_STRIP_SOURCE: with it the Elm compiler's 2.1 MB of JS became 6.1 MB of bytecode), so Function.prototype.toString shows a guest function as `[native code]`",
    covers: (run) => run.path.startsWith('test/built-ins/Function/prototype/toString/'),
  },
  {
    id: 'CanBlockIsTrue',
    reason: 'the guest is a single thread that nothing else can wake, so Atomics.wait cannot block there (it throws TypeError, as on a browser main thread)',
    covers: (run) => run.meta.flags.includes('CanBlockIsTrue'),
  },
];

/** The first limit in `limits` covering `run`, if any. */
export const limitOf = (limits: readonly HarnessLimit[], run: TestRun): HarnessLimit | undefined => limits.find((l) => l.covers(run));

/**
 * Work a command line starts before its command loads. `mep compile|generate|validate|transform`
 * with a wasm extension will run it on a worker thread: starting that thread first lets it boot while the
 * command loads and reads its input (the thread's start is on the critical path otherwise).
 */
import { extname, resolve } from 'node:path';
import { looksLikePath } from './commands/extension-path.ts';

/** The commands that open one session to a frontend, backend, validator or transform extension. */
const OPERATIONS = new Set(['compile', 'generate', 'validate', 'transform']);

/**
 * How a command line is launched, decided once from argv before anything of the command loads
 * (bin.ts), and read by every step after it (cached-cli.ts, run-cli.ts, {@link startEarly}).
 */
export interface LaunchPlan {
  /** The command (`compile`, `generate`, …), as given. */
  command: string | undefined;
  /** A wasm session will likely open: its worker thread is started first. */
  wasm: boolean;
  /**
   * The `.wasm` file the command runs, given by path, absolute (an operation's `--extension`, or
   * `mep call`'s extension): read while the thread boots and prepared on it; and the command runs
   * through the code-cached bundle (cached-cli.ts), where its start counts.
   */
  moduleFile?: string;
}

/** The plan of `argv` (without node and script); a guess: a line its command refuses only costs the work started. */
export function launchPlanOf(argv: readonly string[], cwd: string = process.cwd()): LaunchPlan {
  const command = argv[0];
  const moduleFile = earlyModuleFile(argv, cwd);
  return { command, wasm: opensWasmSession(argv) || moduleFile !== undefined, ...(moduleFile === undefined ? {} : { moduleFile }) };
}

/** The value of `--extension` in `args` (`--extension X` or `--extension=X`), if given: the last one, as the command's parser takes. */
function extensionFlag(args: readonly string[]): string | undefined {
  let value: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '--') break;
    if (arg === '--extension') value = args[++i];
    else if (arg.startsWith('--extension=')) value = arg.slice('--extension='.length);
  }
  return value;
}

/**
 * Whether `argv` (without node and script) will likely open a wasm session: an operation whose
 * `--extension` is a `.wasm` file or an installed id (extensions build to wasm by default), or
 * that finds its provider by claims. A `.js`/`.mjs`/`.cjs` file or another path runs as a process.
 */
export function opensWasmSession(argv: readonly string[]): boolean {
  const [command, ...args] = argv;
  if (command === undefined || !OPERATIONS.has(command) || args.includes('--help') || args.includes('-h')) return false;
  const extension = extensionFlag(args);
  if (extension === undefined) return true;
  if (/\.wasm$/i.test(extension)) return true;
  return !/[/\\]|\.[cm]?js$/i.test(extension);
}

/**
 * The `.wasm` file an operation (`--extension ./x.wasm`) or `mep call` (`mep call ./x.wasm …`) is
 * given by path, absolute, or undefined: the early start will ask the early thread for its module
 * (early-module.ts), so it is read while the thread boots. None for `--help`.
 */
export function earlyModuleFile(argv: readonly string[], cwd: string = process.cwd()): string | undefined {
  const [command, ...args] = argv;
  if (args.includes('--help') || args.includes('-h')) return undefined;
  const extension = command !== undefined && OPERATIONS.has(command) ? extensionFlag(args) : command === 'call' && !args[0]?.startsWith('-') ? args[0] : undefined;
  return extension !== undefined && looksLikePath(extension) && extname(extension).toLowerCase() === '.wasm' ? resolve(cwd, extension) : undefined;
}

/**
 * Starts what `plan` says `argv` needs ({@link launchPlanOf}); never fails. Returns at once,
 * except for an operation on a `.wasm` file given by path where no early thread runs (a
 * checkout): once its module is compiled (early-module.ts).
 */
export async function startEarly(argv: readonly string[], plan: LaunchPlan = launchPlanOf(argv)): Promise<void> {
  if (!plan.wasm) return;
  try {
    // The thread first, before anything else loads here: it boots on the other core meanwhile.
    const thread = (await import('../transport/wasm/node/early-thread.ts')).startEarlyWorkerThread();
    // The module file the early start will ask that thread for: read on node's thread pool
    // while the thread boots, then moved to it (file-module.ts).
    const file = thread === undefined ? undefined : plan.moduleFile;
    if (file !== undefined) void (await import('../transport/wasm/node/file-module.ts')).readModuleOnHost(file);
    const { prestartWasmWorker } = await import('../registry/prestart.ts');
    void prestartWasmWorker();
    // An operation on a .wasm file given by path: its module is prepared on that thread (or
    // here, when there is none), then instantiated there while the command loads
    // (early-module.ts); its input is read meanwhile. Awaited until it is under way there, or
    // compiled here: the command's modules loading alongside on this thread held those steps
    // back until the command asked.
    if (plan.moduleFile === undefined) return;
    const compiling = await import('./early-operation.ts').then((early) => early.startOperation(argv), () => undefined);
    // Nothing will ask for the file read above: its 7 MB are not held for the command's life.
    if (compiling === undefined && file !== undefined) (await import('../transport/wasm/node/file-module.ts')).forgetModuleOnHost();
    if (thread === undefined) await compiling?.module.catch(() => undefined);
  } catch {
    // Only a head start: the session starts its own thread.
  }
}

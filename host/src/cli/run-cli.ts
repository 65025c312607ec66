/**
 * The `mep` command's run, from bin.ts (the ES module chunks in dist/cli/) or from the code-cached
 * CommonJS bundle (cached-cli.ts, compile-entry.ts): the early start, the signal handling, then
 * {@link main}; exits as soon as nothing is left to wait for.
 */
import type { WorkerThread } from '../transport/wasm/node/early-thread.ts';
import type { LaunchPlan } from './early-start.ts';

/**
 * Runs the command `argv`. `earlyThread` is a wasm worker thread started before this module's copy
 * of early-thread.ts loaded (the cached bundle's case); it becomes the early thread. `plan` is the
 * launch plan bin.ts decided (early-start.ts), else decided here.
 */
export async function runCli(argv: string[], earlyThread?: WorkerThread, plan?: LaunchPlan): Promise<void> {
  if (earlyThread !== undefined) (await import('../transport/wasm/node/early-thread.ts')).adoptEarlyWorkerThread(earlyThread);
  // A wasm operation's worker thread boots while the CLI loads (early-start.ts).
  await (await import('./early-start.ts')).startEarly(argv, plan);
  // Interrupted, mep ends its extensions' process groups before it exits (signals.ts).
  (await import('./signals.ts')).installSignalHandling();
  const [{ main }, { exitWhenSettled }] = await Promise.all([import('./main.ts'), import('./settled-exit.ts')]);
  // Once nothing but stdout and stderr is left, at once rather than after the runtime's teardown (settled-exit.ts).
  exitWhenSettled(await main(argv));
}

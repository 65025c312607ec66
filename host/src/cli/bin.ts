/**
 * The process entry of the `mep` command (bin/mep.mjs loads it: compiled from `dist/` in the npm
 * package, through tsx from a checkout). Sets the exit code from {@link main}, and
 * exits as soon as nothing is left to wait for.
 */

export {}; // a module, so that top-level await is allowed

const argv = process.argv.slice(2);
// A wasm operation's worker thread boots while the CLI loads (early-start.ts).
await (await import('./early-start.ts')).startEarly(argv);
// Interrupted, mep ends its extensions' process groups before it exits (signals.ts).
(await import('./signals.ts')).installSignalHandling();
const [{ main }, { exitWhenSettled }] = await Promise.all([import('./main.ts'), import('./settled-exit.ts')]);
// Once nothing but stdout and stderr is left, at once rather than after the runtime's teardown (settled-exit.ts).
exitWhenSettled(await main(argv));

/**
 * The process entry of the `mep` command (bin/mep.mjs loads it: compiled from `dist/` in the npm
 * package, through tsx from a checkout): `mep compile` of a `.wasm` extension through the
 * code-cached bundle where there is one (cached-cli.ts), everything else through run-cli.ts.
 */

export {}; // a module, so that top-level await is allowed

const argv = process.argv.slice(2);
if (!(await (await import('./cached-cli.ts')).runCachedCli(argv))) await (await import('./run-cli.ts')).runCli(argv);

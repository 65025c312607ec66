/**
 * The process entry of the `mep` command (bin/mep.mjs loads it: compiled from `dist/` in the npm
 * package, through tsx from a checkout): `mep compile` of a `.wasm` extension through the
 * code-cached bundle where there is one (cached-cli.ts), everything else through run-cli.ts.
 */

import { runCachedCli } from './cached-cli.ts';

const argv = process.argv.slice(2);
if (!(await runCachedCli(argv))) await (await import('./run-cli.ts')).runCli(argv);

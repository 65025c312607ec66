/**
 * The process entry of the `mep` command (bin/mep.mjs loads it: compiled from `dist/` in the npm
 * package, through tsx from a checkout). Its launch plan is decided once, here (early-start.ts):
 * a command running a `.wasm` file given by path goes through the code-cached bundle where there
 * is one (cached-cli.ts), everything else through run-cli.ts.
 */

import { runCachedCli } from './cached-cli.ts';
import { launchPlanOf } from './early-start.ts';

const argv = process.argv.slice(2);
const plan = launchPlanOf(argv);
if (!(await runCachedCli(argv, plan))) await (await import('./run-cli.ts')).runCli(argv, undefined, plan);

/**
 * The probes run by Node itself, on the clock a test asks for: with SOURCE_DATE_EPOCH in the
 * environment, the process binding's reproducible clock (as a process extension has it without
 * the grant); with MEP_ALLOW_CLOCK=1, Node's own. Prints the answers as JSON.
 */
import { installProcessClock } from '../../guest-pdk/src/binding/process-clock.ts';

process.env.TZ = 'UTC'; // the sandbox's, and the process binding's
installProcessClock(process.env, () => {});
const { runProbes } = await import('./probes.ts');
process.stdout.write(JSON.stringify(await runProbes()));

// The probes with the RegExp literal QuickJS 2021-03-27 cannot parse: `/[\-]/u` (ajv's
// fast-uri has it). On that engine a guest bundling this file does not build at all.
import { PROBES, runProbes as runSome } from './probes.js';

/** Every probe, the literal one included. */
export const ALL_PROBES = { ...PROBES, uEscapeLiteral: () => [/^[\-a]+$/u.test('a-a'), /^[\-a]+$/u.test('b')] };

/** Runs every probe. */
export const runProbes = () => runSome(ALL_PROBES);

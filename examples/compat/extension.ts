/** The compatibility guest: all 15 npm packages of ajv-probe.js and probes.js in one extension. */
import { compatExtension } from './compat-extension.ts';
import { runProbes } from './ajv-probe.js';

export default compatExtension('npm compatibility probes', runProbes);

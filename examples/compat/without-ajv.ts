/**
 * The compatibility guest without ajv and fast-xml-parser, for the engine that cannot load them
 * (QuickJS 2021-03-27; see ajv-probe.js): the other 13 packages still run in one guest.
 */
import { compatExtension } from './compat-extension.ts';
import { runProbes } from './probes.js';

export default compatExtension('npm compatibility probes (without ajv and fast-xml-parser)', () => runProbes());

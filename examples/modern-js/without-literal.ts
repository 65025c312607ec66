/**
 * The modern-JavaScript guest without the `/[\-]/u` literal, for QuickJS 2021-03-27, which cannot
 * parse it: there each of the other probes fails (or answers) on its own.
 */
import { compatExtension } from '../compat/compat-extension.ts';
import { runProbes } from './probes.js';

export default compatExtension('modern JavaScript probes (without the /[\\-]/u literal)', () => runProbes());

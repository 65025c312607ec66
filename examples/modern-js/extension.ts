/** The modern-JavaScript guest: every probe of literal.js (the `/[\-]/u` literal included). */
import { compatExtension } from '../compat/compat-extension.ts';
import { runProbes } from './literal.js';

export default compatExtension('modern JavaScript probes', runProbes);

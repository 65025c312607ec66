/** The Intl and clock guest of issue 33: the probes of probes.ts as one extension. */
import { compatExtension } from '../compat/compat-extension.ts';
import { runProbes } from './probes.ts';

export default compatExtension('Intl and clock probes', runProbes);

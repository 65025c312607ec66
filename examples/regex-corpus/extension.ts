/** The regex corpus guest of issue 33: the probes of probes.ts as one extension. */
import { compatExtension } from '../compat/compat-extension.ts';
import { runProbes } from './probes.ts';

export default compatExtension('Regex corpus probes', runProbes);

/**
 * The compatibility guest without ajv and fast-xml-parser, for the engine that cannot load them
 * (QuickJS 2021-03-27; see ajv-probe.js): the other 13 packages still run in one guest.
 */
import { defineExtension, textArtifact } from '../../guest-pdk/src/index.ts';
import { runProbes } from './probes.js';

export default defineExtension({
  info: { id: 'mep.compat', name: 'npm compatibility probes (without ajv and fast-xml-parser)', version: '0.1.0' },
  backend: {
    targets: ['compat'],
    irVersions: ['3'],
    async generate() {
      return { artifacts: [textArtifact('compat/results.json', JSON.stringify(await runProbes()))] };
    },
  },
});

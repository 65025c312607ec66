/**
 * The compatibility guest: one extension bundling 15 popular npm packages (probes.js), built to
 * both runtimes. Its backend target `compat` answers one artifact, `compat/results.json`: what
 * each package and built-in gave, or what it threw.
 */
import { defineExtension, textArtifact } from '../../guest-pdk/src/index.ts';
import { runProbes } from './ajv-probe.js';

export default defineExtension({
  info: { id: 'mep.compat', name: 'npm compatibility probes', version: '0.1.0' },
  backend: {
    targets: ['compat'],
    irVersions: ['3'],
    async generate() {
      return { artifacts: [textArtifact('compat/results.json', JSON.stringify(await runProbes()))] };
    },
  },
});

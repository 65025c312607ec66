/**
 * The compatibility guest's definition, shared by its two entries: a backend whose target
 * `compat` answers one artifact, `compat/results.json`, with what each probe gave or threw.
 */
import { defineExtension, textArtifact } from '../../guest-pdk/src/index.ts';

/** The extension that answers `run()`'s results. */
export function compatExtension(name: string, run: () => Promise<unknown>): ReturnType<typeof defineExtension> {
  return defineExtension({
    info: { id: 'mep.compat', name, version: '0.1.0' },
    backend: {
      targets: ['compat'],
      irVersions: ['3'],
      async generate() {
        return { artifacts: [textArtifact('compat/results.json', JSON.stringify(await run()))] };
      },
    },
  });
}

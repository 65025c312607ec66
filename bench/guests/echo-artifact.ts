/**
 * Bench guest: a PDK backend that returns its input IR, re-serialized, as one text artifact, so
 * a `generate` round trip moves a payload of the same size in and out. Built by the benches to
 * both runtimes (wasm and process) under .cache/bench/; never shipped.
 */
import { defineExtension, textArtifact } from '../../guest-pdk/src/index.ts';

export default defineExtension({
  info: { id: 'bench.echo-artifact', name: 'Bench echo artifact', version: '0.0.0' },
  backend: {
    targets: ['echo'],
    irVersions: ['3'],
    generate(params) {
      return { artifacts: [textArtifact('echo.json', JSON.stringify(params.ir))] };
    },
  },
});

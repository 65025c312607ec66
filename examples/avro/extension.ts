/**
 * The Morphir IR → Apache Avro backend as an MEP extension. This one file builds to both
 * runtimes: `mep build examples/avro/extension.ts -o avro.wasm` (sandboxed, the default) and
 * `mep build examples/avro/extension.ts --runtime process -o avro.mjs`.
 */
import { defineExtension } from '../../guest-pdk/src/index.ts';
import { AVRO_CAPABILITY, AVRO_EXTENSION_INFO, generateAvroFrom } from './src/index.ts';

export default defineExtension({
  info: { id: AVRO_EXTENSION_INFO.id, name: AVRO_EXTENSION_INFO.name, version: AVRO_EXTENSION_INFO.version },
  backend: {
    targets: [...AVRO_CAPABILITY.targets],
    irVersions: [...AVRO_CAPABILITY.irVersions],
    generate(params, ctx) {
      ctx.progress('begin', 'Projecting Morphir IR to Avro', 0);
      // Takes params.ir and leaves null: the parsed IR is freed as soon as it is read.
      const result = generateAvroFrom(params, (params.options ?? {}) as Record<string, unknown>);
      const errors = result.diagnostics.filter((d) => d.severity === 'error').length;
      ctx.log('info', `avro: ${result.artifacts.length} artifact(s), ${errors} error(s), ${result.diagnostics.length - errors} other diagnostic(s)`);
      ctx.progress('end', `${result.artifacts.length} artifact(s)`, 100);
      return result;
    },
  },
});

/**
 * The Morphir IR → Apache Avro backend as an MEP extension. This one file builds to both
 * runtimes: `mep build examples/avro/extension.ts -o avro.wasm` (sandboxed, the default) and
 * `mep build examples/avro/extension.ts --runtime process -o avro.mjs`.
 */
import { defineExtension } from '../../guest-pdk/src/index.ts';
import { AVRO_CAPABILITY, AVRO_EXTENSION_INFO, generateAvroFrom } from './src/index.ts';

export default defineExtension({
  info: { id: AVRO_EXTENSION_INFO.id, name: AVRO_EXTENSION_INFO.name, version: AVRO_EXTENSION_INFO.version },
  // Its handler checks ctx.cancelled per type (throwIfCancelled below): it may advertise cancellation.
  cancellation: true,
  backend: {
    targets: [...AVRO_CAPABILITY.targets],
    irVersions: [...AVRO_CAPABILITY.irVersions],
    generate(params, ctx) {
      ctx.progress('begin', 'Projecting Morphir IR to Avro', 0);
      // Per type: the cancellation is checked (a cancelled request stops here and answers
      // -32800), and progress goes out whenever the whole percentage moves (at most 100 reports).
      let reported = -1;
      const onType = (done: number, total: number, source: string): void => {
        ctx.throwIfCancelled();
        const percentage = Math.floor((done / total) * 90);
        if (percentage === reported) return;
        reported = percentage;
        ctx.progress('report', `Projecting ${source} (${done + 1}/${total} types)`, percentage);
      };
      // Takes params.ir and leaves null: the parsed IR is freed as soon as it is read. Each
      // artifact goes to the host as soon as it is rendered (ctx.emit), so the sandbox holds one
      // file and the model, never the whole output.
      let emitted = 0;
      const result = generateAvroFrom(
        params,
        (params.options ?? {}) as Record<string, unknown>,
        (artifact) => {
          ctx.throwIfCancelled();
          if (emitted === 0) ctx.progress('report', 'Rendering Avro', 90);
          emitted++;
          ctx.emit(artifact);
        },
        onType,
      );
      const errors = result.diagnostics.filter((d) => d.severity === 'error').length;
      const count = emitted + result.artifacts.length;
      ctx.log('info', `avro: ${count} artifact(s), ${errors} error(s), ${result.diagnostics.length - errors} other diagnostic(s)`);
      ctx.progress('end', `${count} artifact(s)`, 100);
      return result;
    },
  },
});

/**
 * Hostile guest for streamed-artifact back-pressure: a PDK backend (target `flood`) whose
 * generate streams `options.mib` MiB (default 64) of artifacts of `options.kib` KiB (default
 * 256) each through ctx.emit as fast as it can, then answers with none in its result. Built to
 * wasm and to a process script by the hostile tests (.cache/hostile/); never shipped.
 */
import { defineExtension } from '../../guest-pdk/src/index.ts';

export default defineExtension({
  info: { id: 'hostile.artifact-flood', name: 'Hostile artifact flood', version: '0.0.0' },
  backend: {
    targets: ['flood'],
    irVersions: ['3'],
    generate(params, ctx) {
      const options = (params.options ?? {}) as { mib?: number; kib?: number };
      const size = (options.kib ?? 256) * 1024;
      const count = Math.ceil(((options.mib ?? 64) * 1024 * 1024) / size);
      const body = 'x'.repeat(size - 8);
      // Each file differs (its number in front), so nothing can share one string.
      for (let i = 0; i < count; i++) ctx.emit({ path: `flood/${i}.txt`, content: `${String(i).padStart(8, '0')}${body}`, binary: false });
      return { artifacts: [] };
    },
  },
});

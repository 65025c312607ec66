/**
 * Hostile guest for the notification budget and the CLI's log forwarding: a PDK backend
 * (target `flood`) whose generate logs `options.mib` MiB (default 64) in lines of
 * `options.messageKib` KiB (default 64) through ctx.log, then answers with no artifacts. Built
 * to wasm by the hostile tests (.cache/hostile/); never shipped.
 */
import { defineExtension } from '../../guest-pdk/src/index.ts';

export default defineExtension({
  info: { id: 'hostile.log-flood', name: 'Hostile log flood', version: '0.0.0' },
  backend: {
    targets: ['flood'],
    irVersions: ['3'],
    generate(params, ctx) {
      const options = (params.options ?? {}) as { mib?: number; messageKib?: number };
      const size = (options.messageKib ?? 64) * 1024;
      const line = 'x'.repeat(size);
      const count = Math.ceil(((options.mib ?? 64) * 1024 * 1024) / size);
      for (let i = 0; i < count; i++) ctx.log('info', line);
      return { artifacts: [] };
    },
  },
});

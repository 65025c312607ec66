/**
 * Test fixture, never shipped: the Avro extension (its own definition and code), except that its
 * generate, the first time it has sent a report, waits there, reading `ctx.cancelled`, until the
 * request is cancelled; then it goes on, and the extension's own check at the next type answers
 * -32800. It makes "cancelled at its first type" deterministic in both runtimes: a loaded machine
 * let the process extension make all 90 reports before the cancel reached it. Should the cancel
 * never reach the handler (cancellation broken), it waits until the host stops it.
 */
import { defineExtension } from '../../../guest-pdk/src/index.ts';
import avro from '../extension.ts';

const { definition } = avro;
const backend = definition.backend as NonNullable<typeof definition.backend>;
type GenerateContext = Parameters<typeof backend.generate>[1];
/** Only the instance's first generate is held: the next one runs as the extension does. */
let held = false;

export default defineExtension({
  ...definition,
  backend: {
    ...backend,
    generate(params, ctx) {
      const holding = Object.create(ctx) as GenerateContext;
      holding.progress = (kind, message, percentage) => {
        ctx.progress(kind, message, percentage);
        if (kind !== 'report' || held) return;
        held = true;
        while (!ctx.cancelled) {
          // The report is out; the host cancels when it sees it (the time does not move here).
        }
      };
      return backend.generate(params, holding);
    },
  },
});

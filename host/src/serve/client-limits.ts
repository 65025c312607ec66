/**
 * What a `session/open`'s `runtime.limits` may ask for: the server's limits (`mep serve
 * --max-memory …`, an installed extension's own, else the defaults) are the operator's bounds on
 * what each session may make the server hold, so a client may lower them, not raise them (its
 * values used to win: 4 GiB of linear memory a session under `--max-memory 16MiB`). Deadlines
 * stay the client's to choose (each at most a timer's range; the server's session slots bound
 * how many run at once).
 */
import { LocalErrorCode, MepError } from '../protocol/errors.ts';
import { LIMIT_KNOBS, formatLimit, userLimitOf } from '../protocol/limits.ts';
import type { LaunchSpec } from '../registry/launch.ts';
import { wasmLimitsOf } from '../registry/launch-limits.ts';
import { resolveWasmLimits, type WasmLimits } from '../transport/wasm/limits.ts';

/** The limits a client may lower and never raise: what the server holds for each session. */
const SERVER_HELD = ['maxMemoryBytes', 'maxRequestBytes', 'maxResponseBytes', 'maxModuleBytes', 'maxNotificationBytes'] as const;

/** Throws ERR_LIMIT naming the first of `asked` above what the server gives `spec`. */
export function checkClientLimits(spec: LaunchSpec, asked: Partial<WasmLimits> | undefined): void {
  if (asked === undefined) return;
  const server = resolveWasmLimits(spec.name, wasmLimitsOf(spec));
  for (const name of SERVER_HELD) {
    const value = asked[name];
    if (value === undefined || value <= server[name]) continue;
    const user = userLimitOf(name);
    const raise = user === undefined ? '' : `, or start mep serve with ${LIMIT_KNOBS[user].option} ${formatLimit(user, value)}`;
    throw new MepError(
      LocalErrorCode.Limit,
      `session/open asks for runtime.limits.${name} ${value}, above this server's ${server[name]} for ${spec.name}: a client may lower the server's limits, not raise them. Ask for at most ${server[name]}${raise}.`,
      { data: { limit: name, value, serverValue: server[name] } },
    );
  }
}

/**
 * The user scope's root, `$MEP_HOME` (default `~/.mep`), apart from paths.ts so that what runs
 * before the registry loads (the `mep` command's code cache, cli/cached-cli.ts) finds it without
 * the registry's id checks (zod).
 */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/** `$MEP_HOME` resolved against `cwd`, or `~/.mep`; `env` defaults to `process.env`. */
export function mepHome(cwd: string, env: Readonly<Record<string, string | undefined>> = process.env): string {
  return env.MEP_HOME ? resolve(cwd, env.MEP_HOME) : join(homedir(), '.mep');
}

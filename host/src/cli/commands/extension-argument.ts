/** Turns the `<extension>` argument of a command into a launch spec. */
import { stat } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { specFromPath } from '../../registry/launch.ts';
import type { LaunchSpec } from '../../registry/launch.ts';
import { UsageError } from '../exit-codes.ts';
import type { Io } from '../io.ts';

/**
 * A path to an artifact (.wasm, .js/.mjs, executable). Installed ids are resolved by the
 * registry when it is present (see `mep install`).
 */
export async function resolveExtensionArgument(argument: string, io: Io): Promise<LaunchSpec> {
  const path = isAbsolute(argument) ? argument : resolve(io.cwd, argument);
  try {
    const info = await stat(path);
    if (!info.isFile()) throw new UsageError(`${argument} is not a file; pass a .wasm module, a .js/.mjs script or an executable.`);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`no extension at ${argument}: pass a .wasm module, a .js/.mjs script or an executable (build one with 'mep build').`);
  }
  return specFromPath(path);
}

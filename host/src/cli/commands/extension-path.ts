/**
 * How an `--extension` argument is read, apart from the registry (extension-argument.ts), so the
 * early start (cli/early-compile.ts) reads it the same way before the command loads.
 */
import { isAbsolute } from 'node:path';

/**
 * True when `argument` is written as a path: it holds a separator (`./x`, `dist/x.wasm`), is
 * absolute or a drive path, or is `.`/`..`. Anything else is a name, and a name only ever means
 * an installed extension: a file of that name in the working directory must be given as `./name`
 * (so an installed, lock-pinned `acme.avro` cannot be stood in for by an executable `./acme.avro`).
 */
export function looksLikePath(argument: string): boolean {
  return /[/\\]/.test(argument) || isAbsolute(argument) || /^[A-Za-z]:/.test(argument) || argument === '.' || argument === '..';
}

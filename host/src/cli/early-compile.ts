/**
 * What `mep compile <project> --extension <path>.wasm` starts before its command has loaded
 * (issue 32): V8's tier chosen for the project by the command's own decision
 * (`chooseProjectTier`, before anything is compiled, as V8 fixes a module's tiers when it
 * compiles it), then the module prepared and instantiated as early-module.ts says, while the CLI's
 * own modules still load (a third of a small project's run, during which the second core waits).
 * Kept light on purpose: it loads the flag tables, the module compiler and the shape verdicts, not
 * the registry, the session or the transports. A guess that misses (the project's morphir.json
 * read otherwise by the command, say) costs only the work done here.
 */
import { stat } from 'node:fs/promises';
import { extname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { readTextFile } from '../files/regular-file.ts';
import { parseJson } from '../protocol/json-parse.ts';
import { HOST_FILE_LIMITS } from '../protocol/limits.ts';
import { chooseProjectTier } from './commands/compile-tier.ts';
import { looksLikePath } from './commands/extension-path.ts';
import { COMPILE_FLAGS } from './commands/operation-flags.ts';
import { startModule } from './early-module.ts';

const parseCompileFlags = (args: string[]) => parseArgs({ args, options: COMPILE_FLAGS, allowPositionals: true, strict: true });

/** A `mep compile` command line the early start can get going. */
export interface EarlyCompile {
  /** The project folder, as given. */
  project: string;
  /** The `--extension` value: a path to a `.wasm` file, as given. */
  extension: string;
  /** The flags, parsed with `mep compile`'s own table. */
  values: ReturnType<typeof parseCompileFlags>['values'];
}

/**
 * The compile of one project folder with a `.wasm` file given by path (`--extension ./x.wasm`), or
 * undefined for anything else: another command, files instead of a folder, an installed id, a
 * process extension, `--watch`, `--help`, or a line its command would refuse.
 */
export function earlyCompileOf(argv: readonly string[]): EarlyCompile | undefined {
  const [command, ...args] = argv;
  if (command !== 'compile') return undefined;
  let parsed: ReturnType<typeof parseCompileFlags>;
  try {
    parsed = parseCompileFlags(args);
  } catch {
    return undefined;
  }
  const { values, positionals } = parsed;
  const extension = values.extension;
  if (positionals.length !== 1 || values.watch || extension === undefined) return undefined;
  if (!looksLikePath(extension) || extname(extension).toLowerCase() !== '.wasm') return undefined;
  return { project: positionals[0] as string, extension, values };
}

/**
 * Starts what {@link earlyCompileOf} finds in `argv`: V8's tier chosen for the project, then the
 * module compiled. Resolves with it when done, or undefined when nothing was started or it failed;
 * never rejects (the command reports every problem itself).
 */
export async function warmCompile(argv: readonly string[], cwd: string = process.cwd()): Promise<WebAssembly.Module | undefined> {
  return (await startCompile(argv, cwd))?.module.catch(() => undefined);
}

/**
 * {@link warmCompile}, resolving as soon as the module is under way (on the early thread, where
 * there is one), with the promise of it (handled: it may reject unseen); undefined when nothing
 * was started. Never rejects.
 */
export async function startCompile(argv: readonly string[], cwd: string = process.cwd()): Promise<{ module: Promise<WebAssembly.Module> } | undefined> {
  const early = earlyCompileOf(argv);
  if (early === undefined) return undefined;
  try {
    const project = resolve(cwd, early.project);
    const path = resolve(cwd, early.extension);
    const [folder, file] = await Promise.all([stat(project), stat(path)]);
    if (!folder.isDirectory() || !file.isFile()) return undefined;
    return await startModule({ extension: early.extension, path, file, values: early.values }, async () => {
      // The tier before the module is compiled, as the command decides it (compile.ts).
      const manifest = parseJson(await readTextFile(join(project, 'morphir.json'), { what: 'the project file', maxBytes: HOST_FILE_LIMITS.smallFileBytes }));
      const sourceDirectory = (manifest as { sourceDirectory?: unknown } | null)?.sourceDirectory;
      if (typeof sourceDirectory !== 'string') return false;
      await chooseProjectTier(project, sourceDirectory);
      return true;
    });
  } catch {
    return undefined;
  }
}

/**
 * What `mep compile <project> --extension <path>.wasm` starts before its command has loaded
 * (issue 32): the module is read, hashed, shape-checked (or its kept verdict read), memory-capped
 * and compiled while the CLI's own modules still load (a third of a small project's run, during
 * which the second core waits). Kept light on purpose: it loads the flag tables, the module
 * compiler and the shape verdicts, not the registry, the session or the transports.
 *
 * Once compiled, the module is instantiated on the worker the early start prestarted (a spare of
 * the pool prepared for this guest, as `warmTransport` prepares one), so the session finds its
 * engine ready instead of instantiating it after the command has loaded.
 *
 * The command's launch (registry/launch.ts) takes the module offered here when the file's identity
 * (inode, size, mtime, ctime: the early read's bytes came from that very file) and the memory cap are still those of
 * its own key (registry/module-file.ts): the file was not written since, so what was read, hashed
 * and compiled here is what the launch would read. Only a file no lock pins is offered (installed
 * ids are never early). The module itself comes from `compileExtensionModule`, every check
 * included (shape walk or kept verdict, cap). The cap comes from the same flags by the same parser
 * (operation-flags.ts), and V8's tier is chosen by the same decision (`chooseProjectTier`) before
 * anything is compiled, as V8 fixes a module's tiers when it compiles it. A guess that misses (the
 * project's morphir.json read otherwise by the command, say) costs only the work done here.
 */
import { createHash } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { extname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { readTextFile, readRegularFile } from '../files/regular-file.ts';
import { parseJson } from '../protocol/json-parse.ts';
import { HOST_FILE_LIMITS } from '../protocol/limits.ts';
import { identityOf, moduleFileKey, offerModuleAhead } from '../registry/module-file.ts';
import { keepShapeVerdicts, keptShapeVerdicts, shapeVerdictsDirectory } from '../registry/shape-verdicts.ts';
import { resolveWasmLimits } from '../transport/wasm/limits.ts';
import { compileExtensionModule } from '../transport/wasm/module.ts';
import { earlyWorkerThread, type WorkerThread } from '../transport/wasm/node/early-thread.ts';
import { postCompileFile } from '../transport/wasm/node/file-module.ts';
import { chooseProjectTier } from './commands/compile-tier.ts';
import { looksLikePath } from './commands/extension-path.ts';
import { parseGrantFlags } from './commands/grant-flags.ts';
import { parseLimitFlags } from './commands/limit-flags.ts';
import { COMPILE_FLAGS } from './commands/operation-flags.ts';

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

/** The module compiled early, held for the process's life (a one-shot command): the compile caches keep only weak references. */
let held: WebAssembly.Module | undefined;

/**
 * Starts what {@link earlyCompileOf} finds in `argv`: V8's tier chosen for the project, then the
 * module compiled. Resolves with it when done, or undefined when nothing was started or it failed;
 * never rejects (the command reports every problem itself).
 */
export async function warmCompile(argv: readonly string[], cwd: string = process.cwd()): Promise<WebAssembly.Module | undefined> {
  return (await startCompile(argv, cwd))?.module.catch(() => undefined);
}

/**
 * {@link warmCompile}, resolving as soon as the module is under way (its request posted to the
 * early thread, where there is one, once the host's read of the file is in), with the promise of
 * it (handled: it may reject unseen); undefined when nothing was started. Never rejects.
 */
export async function startCompile(argv: readonly string[], cwd: string = process.cwd()): Promise<{ module: Promise<WebAssembly.Module> } | undefined> {
  const early = earlyCompileOf(argv);
  if (early === undefined) return undefined;
  try {
    const project = resolve(cwd, early.project);
    const path = resolve(cwd, early.extension);
    const [folder, file] = await Promise.all([stat(project), stat(path)]);
    if (!folder.isDirectory() || !file.isFile()) return undefined;
    const { maxMemoryBytes, maxModuleBytes } = parseLimitFlags(early.values);
    const limits = { ...(maxMemoryBytes === undefined ? {} : { maxMemoryBytes }), ...(maxModuleBytes === undefined ? {} : { maxModuleBytes }) };
    const name = early.extension;
    // On the thread the command started first, if it did (early-thread.ts): this thread loads the command meanwhile.
    const thread = earlyWorkerThread();
    // Else read here meanwhile; a failure is the command's to report (handled here, so it is never unhandled).
    const bytes = thread ? undefined : readRegularFile(path, { what: 'the wasm module', maxBytes: resolveWasmLimits(name, limits).maxModuleBytes, limit: 'maxModuleBytes' });
    bytes?.catch(() => undefined);
    // The tier before the module is compiled, as the command decides it (compile.ts).
    const manifest = parseJson(await readTextFile(join(project, 'morphir.json'), { what: 'the project file', maxBytes: HOST_FILE_LIMITS.smallFileBytes }));
    const sourceDirectory = (manifest as { sourceDirectory?: unknown } | null)?.sourceDirectory;
    if (typeof sourceDirectory !== 'string') return undefined;
    await chooseProjectTier(project, sourceDirectory);
    // As `mep` does for every command (main.ts): the shape walk's verdict is read from (and kept in) $MEP_HOME.
    keepShapeVerdicts(true);
    const shapeVerdicts = keptShapeVerdicts();
    // Posted before this returns (the host's read awaited here): the command's modules, which load
    // next on this thread, would hold the request back otherwise, and the thread waits for it.
    const compiling = bytes === undefined
      ? (await postCompileFile(thread as WorkerThread, { path, name, limits, verdicts: shapeVerdictsDirectory(), identity: identityOf(file) })).module
      : bytes.then((read) => {
          const sha256 = createHash('sha256').update(read).digest('hex');
          return compileExtensionModule(read, { name, sha256, limits, ...(shapeVerdicts === undefined ? {} : { shapeVerdicts }) });
        });
    // Keyed by the file as stat saw it: the bytes were read after that (here), or on the thread from
    // the file with that very identity (read as it booted, or now: file-module.ts); a write since,
    // and the launch computes another key.
    offerModuleAhead(moduleFileKey(path, file, maxMemoryBytes, undefined), compiling);
    // Then the prestarted worker instantiates it (7 MB of snapshot into the guest's memory) while
    // the command still loads: prepared for the very guest the command's session asks for (the
    // pool's key: this module, and the spec the command builds from these flags, specOfFile).
    // Only instantiated, never called. Only that thread: if the session took it first, it
    // prepares it itself and nothing more starts.
    const values = early.values;
    // Loaded while the module is compiled, so the instantiation is asked for the moment it is in
    // (the command's own modules load on this thread meanwhile and would hold it back).
    const launch = import('../registry/launch.ts');
    launch.catch(() => undefined);
    const warmed = compiling.then(async (module) => {
      held = module;
      const { specOfFile, warmTransport } = await launch;
      void warmTransport(specOfFile(path, parseLimitFlags(values), parseGrantFlags(values)), { onlyPrestarted: true });
      return module;
    });
    warmed.catch(() => undefined);
    return { module: warmed };
  } catch {
    return undefined;
  }
}

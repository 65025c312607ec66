/** `mep build`: compile a TypeScript extension to a sandboxed wasm module or a Node process file. */
import { existsSync, lstatSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { buildRecordPath, readBuildRecord } from '../../registry/build-record.ts';
import { MANIFEST_FILE, entryOf, readManifest } from '../../registry/manifest.ts';
import { ExitCode, UsageError } from '../exit-codes.ts';
import { stopAtInterrupt } from '../signals.ts';
import { watchBuild } from './build-watch.ts';
import type { Command } from './command.ts';
import { onePositional, parseFlags } from './command.ts';

/** Exit codes of a watch ended by a signal, as shells report a process it killed (128 + the signal's number). */
const SIGNAL_EXIT = { SIGINT: 130, SIGTERM: 143 } as const;

export const buildCommand: Command = {
  summary: 'compile a TypeScript extension to wasm (default) or a Node process file',
  help: `Usage: mep build [<entry.ts>] [-o <out>] [--runtime wasm|process] [--watch] [--compiler mep|extism-js] [--snapshot node|wizer] [--no-typecheck] [--no-optimize] [--no-source-map] [--sources-content] [--locale TAG]… [--time-zone ZONE]…

Without an entry or -o, builds what ./extension.json names: its "entry" is the output, its
"runtime" the runtime, and the source the one that output was last built from (recorded beside
it in <out>.build.json, which 'mep pack' reads to refuse a build older than its sources), else
src/extension.ts.

Bundles the entry with esbuild and, for --runtime wasm (the default), compiles it to QuickJS
bytecode, snapshots the initialized engine (in process, or with wizer) and shrinks it with
wasm-opt. An entry whose default export is defineExtension(...) becomes an MEP extension
(exports handle and morphir_extension_info); otherwise every exported function becomes a wasm
export, as with extism-js. --runtime process writes one executable .mjs file that speaks
Content-Length framed JSON-RPC on stdio. Type errors, syntax errors and top-level throws are
reported with file:line. The bundle's source map goes with the output (in the module's
mep.sourcemap section, or beside the script as <out>.map), so errors the extension throws are
reported at file:line of its sources; it names the files without their text.

  -o, --out FILE       the module (.wasm) or script (.mjs) to write
  --runtime R          wasm (default) or process
  --compiler C         mep (default) or extism-js (when extism-js is on PATH)
  --snapshot S         node (default, fastest) or wizer: who snapshots the initialized engine;
                       both give the same module
  --no-typecheck       skip the TypeScript check (an unchanged entry that checked clean is not
                       checked again; TypeScript is loaded only when a check runs)
  --no-optimize        skip wasm-opt (faster builds while developing)
  --watch              rebuild whenever the entry or a file it imports changes, printing each
                       outcome; a failed rebuild keeps the last good output. Ctrl+C stops it
  --no-source-map      leave the source map out
  --sources-content    put the sources' text in the source map too
  --locale TAG         a locale (BCP 47, e.g. de-DE) whose data a wasm guest that uses Intl,
                       toLocale*String or localeCompare carries besides en; repeat or separate
                       with commas. Asked for and not built in, a locale is a RangeError
  --time-zone ZONE     an IANA time zone (e.g. Europe/Paris) such a guest carries besides UTC
                       and the zones its code names as string literals, or 'all' (repeatable)
  --verbose            print the time of each stage on stderr, the command's start-up time, and
                       what Intl the guest carries and its size`,
  async run(argv, io) {
    const { values, positionals } = parseFlags(
      argv,
      {
        out: { type: 'string', short: 'o' },
        runtime: { type: 'string' },
        compiler: { type: 'string' },
        snapshot: { type: 'string' },
        'no-typecheck': { type: 'boolean' },
        'no-optimize': { type: 'boolean' },
        'no-source-map': { type: 'boolean' },
        'sources-content': { type: 'boolean' },
        watch: { type: 'boolean' },
        verbose: { type: 'boolean' },
        locale: { type: 'string', multiple: true },
        'time-zone': { type: 'string', multiple: true },
      },
      'build',
    );
    const fromManifest = positionals.length === 0 || values.out === undefined ? await manifestBuild(io.cwd) : undefined;
    const entry = positionals.length === 0 && fromManifest ? fromManifest.entry : resolve(io.cwd, onePositional(positionals, 'entry file', 'build'));
    values.out ??= fromManifest?.out;
    if (!values.out) throw new UsageError(`-o <out> is required (or run 'mep build' where extension.json names the "entry" to build). Run 'mep build --help'.`);
    const runtime = values.runtime ?? fromManifest?.runtime ?? 'wasm';
    if (runtime !== 'wasm' && runtime !== 'process') throw new UsageError(`--runtime must be wasm or process, got '${runtime}'.`);
    const compiler = values.compiler ?? 'mep';
    if (compiler !== 'mep' && compiler !== 'extism-js') throw new UsageError(`--compiler must be mep or extism-js, got '${compiler}'.`);
    const snapshot = values.snapshot ?? 'node';
    if (snapshot !== 'node' && snapshot !== 'wizer') throw new UsageError(`--snapshot must be node or wizer, got '${snapshot}'.`);
    // Loaded on demand: the build toolchain (binaryen.js) takes seconds to load.
    const { buildGuest, disposeBundleContexts, stopBundler } = await import('../../../../build/guest/index.ts');
    // esbuild's service is a child outside mep's process groups: stopped with mep (signals.ts).
    stopAtInterrupt(stopBundler);
    // Milliseconds from the process's start to the first build step (meaningful for `mep build`
    // in its own process, the figure bench/cli.bench.ts reads).
    const startup = performance.now();
    const outFile = resolve(io.cwd, values.out);
    refuseFolderOutputs(outFile);
    const list = (given: string[] | undefined): string[] => (given ?? []).flatMap((v) => v.split(',')).map((v) => v.trim()).filter((v) => v !== '');
    const zones = list(values['time-zone']);
    const intl = { locales: list(values.locale), timeZones: zones.includes('all') ? ('all' as const) : zones };
    const build = async (publish?: Promise<void>) => {
      const result = await buildGuest({
        ...(publish ? { publish } : {}),
        entry,
        outFile,
        runtime,
        compiler,
        snapshot,
        typecheck: !values['no-typecheck'],
        optimize: !values['no-optimize'],
        // A watch writes the module at once and drops its dead code after (the same module, smaller).
        deferOptimize: values.watch === true,
        // ... and keeps esbuild's contexts, so a rebuild parses only what changed.
        incremental: values.watch === true,
        sourceMap: !values['no-source-map'],
        sourcesContent: values['sources-content'] === true,
        cwd: io.cwd,
        intl,
      });
      const kb = (result.size / 1024).toFixed(0);
      if (values.verbose) {
        const stages = Object.entries(result.timings).map(([stage, ms]) => `${stage} ${ms} ms`);
        io.err(`mep build: start-up ${Math.round(startup)} ms; ${stages.length ? stages.join(', ') : 'no stage ran'}`);
        const i = result.intl;
        io.err(
          i
            ? `mep build: Intl: ${i.services.join(', ')}; locales ${i.locales.join(', ')}; time zones ${i.timeZones === 'all' ? 'all' : ['UTC', ...i.timeZones].join(', ')}; +${(i.bytes / 1024).toFixed(0)} KB of JavaScript`
            : 'mep build: Intl: none (the code uses no Intl, toLocale*String or localeCompare)',
        );
      }
      // What the packages reach for that the sandbox lacks: shown on every build, not only with --verbose.
      for (const w of result.warnings) io.err(`mep build: warning: ${w.message}`);
      const shown = values.watch ? relative(io.cwd, result.outFile) || result.outFile : result.outFile;
      return { result, summary: `Built ${shown} (${runtime}, ${kb} KB${result.cached ? ', cached' : ''})${result.exports.length > 0 ? `; exports: ${result.exports.join(', ')}` : ''}` };
    };
    if (values.watch) {
      let optimizing: Promise<unknown> | undefined;
      const code = await watch(io, entry, async (publish) => {
        const built = await build(publish);
        optimizing = built.result.optimized;
        return built;
      });
      // The last deferred wasm-opt pass ends before the command does: no child process outlives it.
      await optimizing;
      await disposeBundleContexts();
      return code;
    }
    io.out((await build()).summary);
    return ExitCode.Ok;
  },
};

/**
 * Refuses, before anything is built, an output that is a folder, or whose map or build record
 * would be one: each is written by renaming a file over its name, which a folder refuses (EISDIR,
 * after the map was written).
 */
function refuseFolderOutputs(outFile: string): void {
  for (const path of [outFile, `${outFile}.map`, buildRecordPath(outFile)]) {
    if (!lstatSync(path, { throwIfNoEntry: false })?.isDirectory()) continue;
    const role = path === outFile ? 'the output' : `where mep build writes beside ${outFile}`;
    throw new UsageError(`${path} is a folder, ${role}: mep build writes a file there. Name a file with -o (e.g. -o ${join(outFile, 'extension.wasm')}), or move the folder; nothing was built.`);
  }
}

/**
 * What `mep build` builds with no entry or no -o, from ./extension.json: its "entry" is the
 * output and its "runtime" the runtime; the source is the one the last build of that output
 * recorded, else src/extension.ts (as `mep init` lays a project out). Undefined without a manifest.
 */
async function manifestBuild(cwd: string): Promise<{ entry: string; out: string; runtime: 'wasm' | 'process' } | undefined> {
  if (!existsSync(join(cwd, MANIFEST_FILE))) return undefined;
  const manifest = await readManifest(cwd);
  if (manifest.runtime === 'http') throw new UsageError(`extension.json says runtime "http": the extension is served at ${manifest.url}, there is nothing here to build. Build the server's extension where it is served.`);
  const out = resolve(cwd, entryOf(manifest));
  const entry = readBuildRecord(out)?.entryPath ?? resolve(cwd, 'src', 'extension.ts');
  if (!existsSync(entry)) throw new UsageError(`extension.json names ${entryOf(manifest)}, but no build of it recorded its source and there is no src/extension.ts: pass the entry, e.g. 'mep build src/main.ts'.`);
  return { entry, out: entryOf(manifest), runtime: manifest.runtime };
}

/** Runs the watch until Ctrl+C (or SIGTERM), then exits as a process killed by it would. */
async function watch(io: Parameters<Command['run']>[1], entry: string, build: (publish: Promise<void>) => Promise<{ result: { inputs: string[] }; summary: string }>): Promise<number> {
  const controller = new AbortController();
  let stoppedBy: keyof typeof SIGNAL_EXIT | undefined;
  const stop = (signal: keyof typeof SIGNAL_EXIT) => () => {
    stoppedBy ??= signal;
    controller.abort();
  };
  const handlers = { SIGINT: stop('SIGINT'), SIGTERM: stop('SIGTERM') };
  for (const [signal, handler] of Object.entries(handlers)) process.on(signal, handler);
  try {
    await watchBuild(io, {
      entry,
      signal: controller.signal,
      build: async (publish) => {
        const { result, summary } = await build(publish);
        return { summary, inputs: result.inputs };
      },
    });
  } finally {
    for (const [signal, handler] of Object.entries(handlers)) process.off(signal, handler);
  }
  io.err('mep build: stopped watching.');
  return stoppedBy === undefined ? ExitCode.Ok : SIGNAL_EXIT[stoppedBy];
}

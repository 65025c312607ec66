/** `mep build`: compile a TypeScript extension to a sandboxed wasm module or a Node process file. */
import { resolve } from 'node:path';
import { ExitCode, UsageError } from '../exit-codes.ts';
import type { Command } from './command.ts';
import { onePositional, parseFlags } from './command.ts';

export const buildCommand: Command = {
  summary: 'compile a TypeScript extension to wasm (default) or a Node process file',
  help: `Usage: mep build <entry.ts> -o <out> [--runtime wasm|process] [--compiler mep|extism-js] [--snapshot node|wizer] [--no-typecheck] [--no-optimize]

Bundles the entry with esbuild and, for --runtime wasm (the default), compiles it to QuickJS
bytecode, snapshots the initialized engine (in process, or with wizer) and shrinks it with
wasm-opt. An entry whose default export is defineExtension(...) becomes an MEP extension
(exports handle and morphir_extension_info); otherwise every exported function becomes a wasm
export, as with extism-js. --runtime process writes one executable .mjs file that speaks
Content-Length framed JSON-RPC on stdio. Type errors, syntax errors and top-level throws are
reported with file:line.

  -o, --out FILE       the module (.wasm) or script (.mjs) to write
  --runtime R          wasm (default) or process
  --compiler C         mep (default) or extism-js (when extism-js is on PATH)
  --snapshot S         node (default, fastest) or wizer: who snapshots the initialized engine;
                       both give the same module
  --no-typecheck       skip the TypeScript check (an unchanged entry that checked clean is not
                       checked again; TypeScript is loaded only when a check runs)
  --no-optimize        skip wasm-opt (faster builds while developing)
  --verbose            print the time of each stage on stderr, and the command's start-up time`,
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
        verbose: { type: 'boolean' },
      },
      'build',
    );
    const entry = resolve(io.cwd, onePositional(positionals, 'entry file', 'build'));
    if (!values.out) throw new UsageError(`-o <out> is required. Run 'mep build --help'.`);
    const runtime = values.runtime ?? 'wasm';
    if (runtime !== 'wasm' && runtime !== 'process') throw new UsageError(`--runtime must be wasm or process, got '${runtime}'.`);
    const compiler = values.compiler ?? 'mep';
    if (compiler !== 'mep' && compiler !== 'extism-js') throw new UsageError(`--compiler must be mep or extism-js, got '${compiler}'.`);
    const snapshot = values.snapshot ?? 'node';
    if (snapshot !== 'node' && snapshot !== 'wizer') throw new UsageError(`--snapshot must be node or wizer, got '${snapshot}'.`);
    // Loaded on demand: the build toolchain (binaryen.js) takes seconds to load.
    const { buildGuest } = await import('../../../../build/guest/index.ts');
    // Milliseconds from the process's start to the first build step (meaningful for `mep build`
    // in its own process, the figure bench/cli.bench.ts reads).
    const startup = performance.now();
    const result = await buildGuest({
      entry,
      outFile: resolve(io.cwd, values.out),
      runtime,
      compiler,
      snapshot,
      typecheck: !values['no-typecheck'],
      optimize: !values['no-optimize'],
    });
    const kb = (result.size / 1024).toFixed(0);
    if (values.verbose) {
      const stages = Object.entries(result.timings).map(([stage, ms]) => `${stage} ${ms} ms`);
      io.err(`mep build: start-up ${Math.round(startup)} ms; ${stages.length ? stages.join(', ') : 'no stage ran'}`);
    }
    io.out(`Built ${result.outFile} (${runtime}, ${kb} KB${result.cached ? ', cached' : ''}); exports: ${result.exports.join(', ')}`);
    return ExitCode.Ok;
  },
};

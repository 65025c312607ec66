/**
 * Builds the workerd embedding: bundles the worker (ES module, no `node:` import), copies the
 * Avro extension and the host-channel trampoline beside it as wasm module bindings, and writes
 * a workerd config.
 *
 * Run: `node --import tsx embed/workerd/build.ts --avro path/to/avro.wasm [--port 8787] [outDir]`,
 * then `npx workerd serve <outDir>/config.capnp`.
 */
import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { LocalErrorCode, MepError } from '../../host/src/protocol/errors.ts';
import { hostTrampolineBytes } from '../../host/src/transport/wasm/index.ts';
import { checkNoNodeImports, flagNodeImports } from '../bundle-check.ts';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..', '..');

/** Options of {@link buildWorkerdEmbed}. */
export interface BuildWorkerdEmbedOptions {
  /** The built Avro extension (`mep build examples/avro/extension.ts -o avro.wasm`). */
  avroWasm: string;
  /** Loopback port the config listens on. */
  port: number;
  /** Output folder. Default `.cache/embed/workerd`. */
  outDir?: string;
}

/** Paths {@link buildWorkerdEmbed} wrote. */
export interface WorkerdEmbedBuild {
  outDir: string;
  config: string;
}

/**
 * The workerd config: one worker (`worker.js` plus the wasm modules `avro.wasm` and
 * `mep-host-trampoline.wasm`, the host channel's trampoline that workerd will not compile at run
 * time) behind an HTTP socket on 127.0.0.1:`port`. The secret `MEP_TOKEN` is bound from workerd's
 * own environment (`MEP_TOKEN=… npx workerd serve config.capnp`); unset, the worker asks no token.
 */
export function workerdConfig(port: number): string {
  return `using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [ (name = "mep-avro", worker = .avroWorker) ],
  sockets = [ (name = "http", address = "127.0.0.1:${port}", http = (), service = "mep-avro") ],
);

const avroWorker :Workerd.Worker = (
  modules = [
    (name = "worker.js", esModule = embed "worker.js"),
    (name = "avro.wasm", wasm = embed "avro.wasm"),
    (name = "mep-host-trampoline.wasm", wasm = embed "mep-host-trampoline.wasm"),
  ],
  bindings = [ (name = "MEP_TOKEN", fromEnvironment = "MEP_TOKEN") ],
  compatibilityDate = "2025-01-01",
);
`;
}

/**
 * Bundles `src/worker.ts` to `worker.js`, copies the extension to `avro.wasm` and writes
 * `config.capnp` into `outDir`.
 *
 * @example
 * const { config } = await buildWorkerdEmbed({ avroWasm: 'out/avro.wasm', port: 8787 });
 * // npx workerd serve <config>
 */
export async function buildWorkerdEmbed(options: BuildWorkerdEmbedOptions): Promise<WorkerdEmbedBuild> {
  const outDir = resolve(options.outDir ?? join(root, '.cache', 'embed', 'workerd'));
  await mkdir(outDir, { recursive: true });
  let result;
  try {
    result = await build({
      entryPoints: [join(here, 'src', 'worker.ts')],
      outfile: join(outDir, 'worker.js'),
      bundle: true,
      format: 'esm',
      platform: 'neutral',
      conditions: ['workerd', 'worker', 'browser'],
      mainFields: ['browser', 'module', 'main'],
      target: 'es2022',
      minify: true,
      metafile: true,
      logLevel: 'silent',
      // The wasm module is bound by the runtime, not bundled: edge runtimes refuse to compile bytes.
      external: ['./avro.wasm', './mep-host-trampoline.wasm'],
      plugins: [flagNodeImports],
    });
  } catch (error) {
    throw new MepError(LocalErrorCode.Build, `esbuild could not bundle the workerd worker: ${(error as Error).message}`, { cause: error });
  }
  checkNoNodeImports(result.metafile);
  await copyFile(resolve(options.avroWasm), join(outDir, 'avro.wasm'));
  await writeFile(join(outDir, 'mep-host-trampoline.wasm'), hostTrampolineBytes());
  const config = join(outDir, 'config.capnp');
  await writeFile(config, workerdConfig(options.port));
  return { outDir, config };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const value = (flag: string): string | undefined => (args.includes(flag) ? args[args.indexOf(flag) + 1] : undefined);
  const avroWasm = value('--avro');
  if (avroWasm === undefined) throw new MepError(LocalErrorCode.Usage, 'Pass --avro path/to/avro.wasm (build it with: mep build examples/avro/extension.ts -o out/avro.wasm).');
  const flagged = new Set([args.indexOf('--avro') + 1, args.indexOf('--port') + 1]);
  const outDir = args.find((a, i) => !a.startsWith('--') && !flagged.has(i));
  const built = await buildWorkerdEmbed({ avroWasm, port: Number(value('--port') ?? 8787), outDir });
  console.log(`Built the workerd embedding in ${built.outDir}; run: npx workerd serve ${built.config}`);
}

/**
 * Builds the browser embedding with esbuild: the library (`mep-embed.js`), the Web Worker that
 * runs guests (`mep-wasm-worker.js`) and the demo page (`index.html`, `app.js`, and `avro.wasm`
 * and `elm-frontend.wasm` when given). Fails when any bundle would contain a `node:` import: the host core must run
 * without Node (architecture.md, Decisions).
 *
 * Run: `node --import tsx embed/browser/build.ts [outDir] [--avro path/to/avro.wasm] [--elm path/to/elm-frontend.wasm]`.
 */
import { copyFile, mkdir } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { LocalErrorCode, MepError } from '../../host/src/protocol/errors.ts';
import { checkNoNodeImports, flagNodeImports } from '../bundle-check.ts';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..', '..');

/** Options of {@link buildBrowserEmbed}. */
export interface BuildBrowserEmbedOptions {
  /** Output folder. Default `.cache/embed/browser`. */
  outDir?: string;
  /** A built Avro extension to serve as the page's built-in `avro.wasm`. */
  avroWasm?: string;
  /** A built Elm frontend to serve as the page's `elm-frontend.wasm` (Elm sources → Morphir IR). */
  elmWasm?: string;
  /** Minify the bundles. Default true. */
  minify?: boolean;
}

/** What {@link buildBrowserEmbed} wrote. */
export interface BrowserEmbedBuild {
  outDir: string;
  /** Output files, relative to `outDir`, with their sizes in bytes. */
  files: Record<string, number>;
}

/**
 * Bundles the library, the worker and the page into `outDir`.
 *
 * @example
 * const { outDir } = await buildBrowserEmbed({ avroWasm: '.cache/examples/avro.wasm' });
 */
export async function buildBrowserEmbed(options: BuildBrowserEmbedOptions = {}): Promise<BrowserEmbedBuild> {
  const outDir = resolve(options.outDir ?? join(root, '.cache', 'embed', 'browser'));
  await mkdir(outDir, { recursive: true });
  let result;
  try {
    result = await build({
      entryPoints: {
        'mep-embed': join(here, 'src', 'index.ts'),
        'mep-wasm-worker': join(here, 'src', 'worker-entry.ts'),
        app: join(here, 'page', 'app.ts'),
      },
      outdir: outDir,
      bundle: true,
      format: 'esm',
      platform: 'browser',
      target: 'es2022',
      minify: options.minify ?? true,
      sourcemap: true,
      metafile: true,
      logLevel: 'silent',
      plugins: [flagNodeImports],
    });
  } catch (error) {
    throw new MepError(LocalErrorCode.Build, `esbuild could not bundle the browser embedding: ${(error as Error).message}`, { cause: error });
  }
  checkNoNodeImports(result.metafile);
  await copyFile(join(here, 'page', 'index.html'), join(outDir, 'index.html'));
  if (options.avroWasm) await copyFile(resolve(options.avroWasm), join(outDir, 'avro.wasm'));
  if (options.elmWasm) await copyFile(resolve(options.elmWasm), join(outDir, 'elm-frontend.wasm'));
  const files: Record<string, number> = {};
  // Metafile paths are relative to the working directory esbuild ran in.
  for (const [file, output] of Object.entries(result.metafile.outputs)) files[relative(outDir, resolve(process.cwd(), file))] = output.bytes;
  return { outDir, files };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const valueOf = (name: string): string | undefined => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
  const values = new Set(['--avro', '--elm'].filter((f) => args.includes(f)).map((f) => args.indexOf(f) + 1));
  const outDir = args.find((a, i) => !a.startsWith('--') && !values.has(i));
  const built = await buildBrowserEmbed({ outDir, avroWasm: valueOf('--avro'), elmWasm: valueOf('--elm') });
  console.log(`Built the browser embedding in ${built.outDir}:`);
  for (const [file, bytes] of Object.entries(built.files)) console.log(`  ${file} (${bytes} bytes)`);
}

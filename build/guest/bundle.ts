/**
 * Bundles a guest entry with esbuild: for wasm, one ES2020 script that assigns the entry's
 * exports to `globalThis.__mep_exports` (what the engine binds); for process, one ESM file for
 * Node. PDK extensions (an entry with a `default` export) get a generated wrapper that binds
 * them through the guest PDK's runtime binding.
 */
import * as esbuild from 'esbuild';
import { existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { finishBundleMap, projectRootOf } from './bundle-map.ts';
import { buildFailure, toolFailure, type Diagnostic } from './diagnostics.ts';

/**
 * Where the guest PDK is: its TypeScript sources in a checkout, its compiled JavaScript (with
 * `.d.ts` beside it, for the type check) in the npm package, whose `dist/` mirrors the sources.
 */
const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const EXT = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
/** The guest PDK's wasm binding (exports `bindWasm(extension)`). */
export const PDK_WASM_BINDING = join(REPO_ROOT, 'guest-pdk', 'src', 'binding', `wasm${EXT}`);
/** The guest PDK's process binding (exports `runProcess(extension)`). */
export const PDK_PROCESS_BINDING = join(REPO_ROOT, 'guest-pdk', 'src', 'binding', `process${EXT}`);
/** The guest PDK entry that `import … from 'mep-runtime/guest-pdk'` resolves to in every build. */
export const PDK_INDEX = join(REPO_ROOT, 'guest-pdk', 'src', `index${EXT}`);
/**
 * An extension is always built against the PDK of the `mep` that builds it, so a scaffolded
 * project needs no installed copy of mep-runtime and can never mix two PDK versions.
 */
export const PDK_ALIAS = { 'mep-runtime/guest-pdk': PDK_INDEX } as const;
/** The global the wasm bundle assigns the exports object to. */
export const EXPORTS_GLOBAL = '__mep_exports';
/** The Extism exports of a PDK extension. */
export const PDK_EXPORTS = ['handle', 'morphir_extension_info', 'mep_release'] as const;

/** A bundle ready for the next stage. */
export interface Bundle {
  /** The bundled JavaScript. */
  code: string;
  /**
   * Its source map (JSON; bundle-map.ts): sources relative to {@link Bundle.projectRoot},
   * dependencies in `ignoreList`, no source text unless asked.
   */
  map: string;
  /** The folder the map's sources are relative to (the nearest package.json above the entry). */
  projectRoot: string;
  /** Every file the bundle was made from (absolute paths): what `mep build --watch` watches. */
  inputs: string[];
  /** Names the wasm guest exports (Extism exports), in a stable order. */
  exports: string[];
  /** True when the entry is a PDK extension (has a default export). */
  pdk: boolean;
}

/** Options for {@link bundleGuest}. */
export interface BundleOptions {
  entry: string;
  runtime: 'wasm' | 'process';
  /** Folder that diagnostics are relative to (and the project root when no package.json is found). */
  cwd: string;
  /** The generated file's name in the map (default `guest.js`, the name the engine compiles a wasm bundle under). */
  mapFile?: string;
  /** Keep the sources' text in the map (default false). */
  sourcesContent?: boolean;
  /** The map's `sourceRoot`, for a map written beside its script (bundle-map.ts). */
  sourceRoot?: string;
}

/** The file name the engine's compile-src gives a wasm bundle; its stack frames name it. */
export const WASM_BUNDLE_FILE = 'guest.js';

const aliases = (): Record<string, string> => ({ ...PDK_ALIAS });

function toDiagnostics(e: unknown, cwd: string): Diagnostic[] | null {
  const errors = (e as { errors?: esbuild.Message[] }).errors;
  if (!Array.isArray(errors)) return null;
  return errors.map((m) => ({
    file: m.location ? relative(cwd, resolve(cwd, m.location.file)) : '<bundle>',
    line: m.location?.line ?? 1,
    column: (m.location?.column ?? 0) + 1,
    message: m.text,
  }));
}

async function run(options: esbuild.BuildOptions, entry: string, cwd: string): Promise<esbuild.BuildResult & { outputFiles: esbuild.OutputFile[]; metafile: esbuild.Metafile }> {
  try {
    return (await esbuild.build({ ...options, write: false, metafile: true, logLevel: 'silent', absWorkingDir: cwd, alias: aliases() })) as never;
  } catch (e) {
    const diagnostics = toDiagnostics(e, cwd);
    if (diagnostics) throw buildFailure(entry, 'bundle', diagnostics);
    throw toolFailure(`esbuild failed on ${entry}`, String(e), e);
  }
}

/** Lists the export names of the entry module (esbuild's metafile). */
async function exportsOf(entry: string, cwd: string): Promise<string[]> {
  const r = await run({ entryPoints: [entry], bundle: true, format: 'esm', platform: 'neutral', outfile: join(cwd, 'analysis.mjs'), mainFields: ['module', 'main'], alias: PDK_ALIAS }, entry, cwd);
  const out = Object.values(r.metafile.outputs).find((o) => o.entryPoint !== undefined);
  return out?.exports ?? [];
}

function pdkWrapper(entry: string, runtime: 'wasm' | 'process'): string {
  const binding = runtime === 'wasm' ? PDK_WASM_BINDING : PDK_PROCESS_BINDING;
  if (!existsSync(binding)) {
    throw toolFailure(
      `cannot build the PDK extension ${entry} for ${runtime}`,
      `its default export needs the guest PDK binding ${relative(REPO_ROOT, binding)}, which does not exist yet; export plain functions (export function handle(): number) or add the binding`,
    );
  }
  const e = JSON.stringify(resolve(entry));
  const b = JSON.stringify(binding);
  return runtime === 'wasm'
    ? `import extension from ${e};\nimport { bindWasm } from ${b};\nconst bound = bindWasm(extension);\n` +
        PDK_EXPORTS.map((n) => `export function ${n}() { return bound.${n}(); }`).join('\n') + '\n'
    : `import extension from ${e};\nimport { runProcess } from ${b};\nrunProcess(extension);\n`;
}

/**
 * Bundles the entry for a runtime. Throws `MepError` `ERR_BUILD` with diagnostics on errors.
 *
 * @example
 * const b = await bundleGuest({ entry: 'ext/main.ts', runtime: 'wasm', cwd: process.cwd() });
 */
export async function bundleGuest(options: BundleOptions): Promise<Bundle> {
  const { entry, runtime, cwd } = options;
  const names = await exportsOf(entry, cwd);
  const pdk = names.includes('default');
  const projectRoot = projectRootOf(entry, cwd);
  const wrapper = `${relative(cwd, entry)}.wrapper.js`;
  const source: Pick<esbuild.BuildOptions, 'entryPoints' | 'stdin'> = pdk
    ? { stdin: { contents: pdkWrapper(entry, runtime), resolveDir: cwd, sourcefile: wrapper, loader: 'js' } }
    : { entryPoints: [entry] };
  const common: esbuild.BuildOptions = { ...source, alias: PDK_ALIAS, bundle: true, sourcemap: 'external', sourcesContent: options.sourcesContent === true, legalComments: 'none', charset: 'utf8' };
  // The outfile only places the map: its sources come out relative to the project root.
  const r =
    runtime === 'wasm'
      ? await run({ ...common, format: 'iife', globalName: EXPORTS_GLOBAL, platform: 'neutral', mainFields: ['module', 'main'], target: 'es2020', outfile: join(projectRoot, WASM_BUNDLE_FILE) }, entry, cwd)
      : await run({ ...common, format: 'esm', platform: 'node', target: 'node20', outfile: join(projectRoot, 'guest.mjs'), banner: { js: '#!/usr/bin/env node' } }, entry, cwd);
  const code = r.outputFiles.find((f) => !f.path.endsWith('.map'))?.text ?? '';
  const raw = r.outputFiles.find((f) => f.path.endsWith('.map'))?.text ?? '{"version":3,"sources":[],"mappings":""}';
  const map = finishBundleMap(raw, {
    projectRoot,
    file: options.mapFile ?? WASM_BUNDLE_FILE,
    runtimeRoot: REPO_ROOT,
    // esbuild names the stdin module by its sourcefile, relative to the outfile's folder.
    generated: [wrapper, relative(projectRoot, resolve(cwd, wrapper)).split('\\').join('/')],
    sourcesContent: options.sourcesContent,
    sourceRoot: options.sourceRoot,
  });
  const exports = pdk ? [...PDK_EXPORTS] : names.filter((n) => n !== 'default').sort();
  // esbuild names inputs relative to its working directory; the generated wrapper is no file.
  const inputs = Object.keys(r.metafile.inputs)
    .filter((input) => input !== '<stdin>' && !input.includes(':'))
    .map((input) => resolve(cwd, input));
  return { code, map, projectRoot, inputs, exports, pdk };
}

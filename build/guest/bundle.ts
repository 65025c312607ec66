/**
 * Bundles a guest entry with esbuild: for wasm, one ES2020 script that assigns the entry's
 * exports to `globalThis.__mep_exports` (what the engine binds); for process, one ESM file for
 * Node. PDK extensions (an entry with a `default` export) get a generated wrapper that binds
 * them through the guest PDK's runtime binding.
 */
import * as esbuild from 'esbuild';
import { existsSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { finishBundleMap, projectRootOf } from './bundle-map.ts';
import { dependencyCheckKey, dependencyWarnings, markedBuild, type DependencyWarning } from './dependency-globals.ts';
import { buildFailure, toolFailure, type Diagnostic } from './diagnostics.ts';
import { MepError } from '../../host/src/protocol/errors.ts';
import { INTL_MODULE, intlModule, intlPlugin, type IntlOptions, type IntlPlan } from './intl/intl-module.ts';
import { guardRefusal, literalEntries, sourceGuard, type SourceGuard } from './source-files.ts';

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
  /** What a wasm bundle carries of Intl (intl/intl-module.ts), with the bytes of JavaScript it adds; absent when it uses none. */
  intl?: IntlPlan & { bytes: number };
  /** Globals the sandbox lacks that the bundled packages use (a wasm bundle; dependency-globals.ts). */
  warnings: DependencyWarning[];
  /**
   * How a wasm bundle's {@link Bundle.warnings} were found: `bundled` (the check bundled the guest
   * once more) or `unchanged` (a kept build whose package code had not changed since the last check).
   */
  dependencyCheck?: 'bundled' | 'unchanged';
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
  /** The locales and time zones a wasm guest that uses Intl gets beyond `en` and the zones its code names. */
  intl?: IntlOptions;
}

/** The file name the engine's compile-src gives a wasm bundle; its stack frames name it. */
export const WASM_BUNDLE_FILE = 'guest.js';

const aliases = (): Record<string, string> => ({ ...PDK_ALIAS });

/** Where a wasm guest resolves packages: their browser/worker builds (the sandbox is a worker, not Node). */
export const WASM_CONDITIONS = ['worker', 'browser'] as const;
const BUILTIN = new RegExp(`^(node:.*|${builtinModules.filter((m) => !m.startsWith('_')).map((m) => m.replace(/[/]/g, '\\/')).join('|')})(\\/.*)?$`);

/** Where {@link builtinGuard} puts the built-ins it kept out (swapped per build of a kept context). */
interface BuiltinSink {
  found: { path: string; importer: string }[];
}

/**
 * A Node built-in left in a wasm bundle after the browser field had its say: kept external while
 * esbuild runs, so the whole import graph is known, then reported with the chain of importers.
 */
function builtinGuard(sink: BuiltinSink): esbuild.Plugin {
  return {
    name: 'mep-node-builtins',
    setup(build) {
      build.onResolve({ filter: BUILTIN }, async (args) => {
        if (args.pluginData === 'mep-builtin') return undefined;
        // A package's browser field may map the built-in to a shim or to false: let esbuild try first.
        const r = await build.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: 'mep-builtin' });
        // Mapped to false: an empty module, as esbuild makes one without this plugin.
        if (r.errors.length === 0 && !r.external && r.namespace === '') return { path: args.path, namespace: 'mep-empty' };
        if (r.errors.length === 0 && !r.external) return r;
        sink.found.push({ path: args.path, importer: args.importer });
        return { path: args.path, external: true };
      });
      build.onLoad({ filter: /.*/, namespace: 'mep-empty' }, () => ({ contents: '', loader: 'js' }));
    },
  };
}

/** The chain of imports from the entry to `importer` (entry first), from esbuild's metafile. */
function importChain(metafile: esbuild.Metafile, importer: string, cwd: string): string[] {
  const target = relative(cwd, importer);
  const parents = new Map<string, string>();
  const inputs = metafile.inputs;
  const entry = Object.keys(inputs).find((k) => !Object.values(inputs).some((i) => i.imports.some((x) => x.path === k))) ?? target;
  const queue = [entry];
  const seen = new Set(queue);
  while (queue.length > 0) {
    const at = queue.shift()!;
    if (at === target) break;
    for (const next of inputs[at]?.imports ?? []) {
      if (next.external || seen.has(next.path)) continue;
      seen.add(next.path);
      parents.set(next.path, at);
      queue.push(next.path);
    }
  }
  const chain = [target];
  for (let at = target; parents.has(at); ) chain.unshift((at = parents.get(at)!));
  return chain.map((p) => p.replace(/^<stdin>$/, 'the PDK wrapper'));
}

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

type Built = esbuild.BuildResult & { outputFiles: esbuild.OutputFile[]; metafile: esbuild.Metafile };

/**
 * esbuild contexts kept between the builds of one process (`mep build --watch`), one per build
 * shape (its options; plugins by name): a rebuild parses again only the files that changed. The
 * builds of one context run one at a time, each with its own built-in sink.
 */
const contexts = new Map<string, { context: Promise<esbuild.BuildContext>; sink: BuiltinSink; queue: Promise<unknown>; guard: SourceGuard }>();

/** The last sandbox check of each kept build (entry and folder): its {@link dependencyCheckKey} and warnings. */
const dependencyChecks = new Map<string, { key: string; warnings: DependencyWarning[] }>();

/** Stops esbuild's service process (`mep` interrupted: cli/signals.ts), whatever it is reading. */
export const stopBundler = (): Promise<void> => esbuild.stop();

/** Disposes the kept esbuild contexts (the end of a watch). */
export async function disposeBundleContexts(): Promise<void> {
  const kept = [...contexts.values()];
  contexts.clear();
  dependencyChecks.clear();
  await Promise.all(kept.map(async (k) => (await k.context.catch(() => undefined))?.dispose()));
}

/**
 * One esbuild build; with `keep` (a watch), through a kept context that rebuilds incrementally.
 * `sink` receives the built-ins a {@link builtinGuard} among the plugins kept out.
 */
async function run(options: esbuild.BuildOptions, entry: string, cwd: string, keep = false, sink?: BuiltinSink): Promise<Built> {
  // Every build refuses a module in a system tree (source-files.ts).
  const guard = sourceGuard(entry, cwd);
  const full: esbuild.BuildOptions = { ...options, entryPoints: literalEntries(options.entryPoints, cwd), plugins: [guard.plugin, ...(options.plugins ?? [])], write: false, metafile: true, logLevel: 'silent', absWorkingDir: cwd, alias: aliases() };
  try {
    if (!keep) return (await esbuild.build(full)) as never;
    const key = JSON.stringify({ ...full, plugins: (full.plugins ?? []).map((p) => p.name) });
    let kept = contexts.get(key);
    if (!kept) {
      const own: BuiltinSink = { found: [] };
      const plugins = (full.plugins ?? []).map((p) => (p.name === 'mep-node-builtins' ? builtinGuard(own) : p));
      kept = { context: esbuild.context({ ...full, plugins }), sink: own, queue: Promise.resolve(), guard };
      contexts.set(key, kept);
      kept.context.catch(() => contexts.delete(key)); // a context that could not start is not kept
    }
    const { context, sink: own, guard: keptGuard } = kept;
    const turn = kept.queue.then(async () => {
      own.found = sink?.found ?? [];
      const started = await context;
      keptGuard.recheck(); // before esbuild reads the project's resolver files again
      return (await started.rebuild()) as Built;
    });
    kept.queue = turn.catch(() => undefined);
    return await turn;
  } catch (e) {
    if (e instanceof MepError) throw e; // the guard's refusal before a rebuild (recheck), typed already
    const refusal = guardRefusal(e); // the guard's refusal from a hook, as it was raised
    if (refusal) throw refusal;
    const diagnostics = toDiagnostics(e, cwd);
    if (diagnostics) throw buildFailure(entry, 'bundle', diagnostics);
    throw toolFailure(`esbuild failed on ${entry}`, String(e), e);
  }
}

/** Lists the export names of the entry module (esbuild's metafile). */
async function exportsOf(entry: string, cwd: string, keep: boolean): Promise<string[]> {
  // Only the entry's own exports matter here: packages and Node built-ins stay outside.
  // The PDK stays outside too (a plugin answers before the alias would pull its sources in).
  const pdkOutside: esbuild.Plugin = { name: 'mep-pdk-outside', setup: (b) => void b.onResolve({ filter: /^mep-runtime\/guest-pdk$/ }, (a) => ({ path: a.path, external: true })) };
  const r = await run({ entryPoints: [entry], bundle: true, format: 'esm', platform: 'neutral', outfile: join(cwd, 'analysis.mjs'), mainFields: ['module', 'main'], alias: PDK_ALIAS, packages: 'external', external: ['node:*', ...builtinModules], plugins: [pdkOutside] }, entry, cwd, keep);
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
    : // The binding first: its console (binding/process-console.ts) is in place before the extension's top level runs.
      `import { runProcess } from ${b};\nimport extension from ${e};\nrunProcess(extension);\n`;
}

/**
 * Bundles the entry for a runtime. Throws `MepError` `ERR_BUILD` with diagnostics on errors.
 *
 * @example
 * const b = await bundleGuest({ entry: 'ext/main.ts', runtime: 'wasm', cwd: process.cwd() });
 */
export async function bundleGuest(options: BundleOptions, keep = false): Promise<Bundle> {
  const { entry, runtime, cwd } = options;
  const names = await exportsOf(entry, cwd, keep);
  const pdk = names.includes('default');
  const projectRoot = projectRootOf(entry, cwd);
  const wrapper = `${relative(cwd, entry)}.wrapper.js`;
  const source: Pick<esbuild.BuildOptions, 'entryPoints' | 'stdin'> = pdk
    ? { stdin: { contents: pdkWrapper(entry, runtime), resolveDir: cwd, sourcefile: wrapper, loader: 'js' } }
    : { entryPoints: [entry] };
  const common: esbuild.BuildOptions = { ...source, alias: PDK_ALIAS, bundle: true, sourcemap: 'external', sourcesContent: options.sourcesContent === true, legalComments: 'none', charset: 'utf8' };
  const builtins: { path: string; importer: string }[] = [];
  // Process builds are ESM: a CommonJS dependency's require() of a Node built-in needs a real require.
  // (The module URL's name is spelled in two pieces: the package build rewrites the whole word in this file.)
  const processBanner = `#!/usr/bin/env node\nimport { createRequire as __mepCreateRequire } from 'node:module';\nconst require = __mepCreateRequire(${'import.meta'}.url);`;
  // The outfile only places the map: its sources come out relative to the project root.
  const wasmOptions: esbuild.BuildOptions = { format: 'iife', globalName: EXPORTS_GLOBAL, platform: 'browser', conditions: [...WASM_CONDITIONS], mainFields: ['browser', 'module', 'main'], target: 'es2020', outfile: join(projectRoot, WASM_BUNDLE_FILE) };
  // The sandbox check of the dependencies bundles once more (dependency-globals.ts). A one-off
  // build runs it at the same time as the bundle itself (esbuild builds in parallel); a kept build
  // (a watch) only when the package code in the bundle changed since its last check: an edit of
  // the author's own code takes the last check's warnings.
  const checkOf = JSON.stringify([entry, cwd]);
  const lastCheck = keep ? dependencyChecks.get(checkOf) : undefined;
  const check = (): ReturnType<typeof markedBuild> => markedBuild((extra) => run({ ...common, ...wasmOptions, plugins: [builtinGuard({ found: [] })], ...extra }, entry, cwd, keep));
  const warningsBuild = runtime === 'wasm' && lastCheck === undefined ? check() : undefined;
  warningsBuild?.catch(() => undefined); // awaited below; the bundle's own build reports its errors
  let r =
    runtime === 'wasm'
      ? await run({ ...common, ...wasmOptions, plugins: [builtinGuard({ found: builtins })] }, entry, cwd, keep, { found: builtins })
      : await run({ ...common, format: 'esm', platform: 'node', target: 'node20', outfile: join(projectRoot, 'guest.mjs'), banner: { js: processBanner } }, entry, cwd, keep);
  // A wasm guest that uses Intl gets it bundled, imported before anything else (Node has its own).
  const codeOf = (result: typeof r): string => result.outputFiles.find((f) => !f.path.endsWith('.map'))?.text ?? '';
  const bundled = r.metafile; // before Intl joins it: the check bundles without
  const intl = runtime === 'wasm' && builtins.length === 0 ? intlModule(codeOf(r), options.intl) : undefined;
  let intlBytes = 0;
  if (intl) {
    const plain = Buffer.byteLength(codeOf(r));
    const contents = `import '${INTL_MODULE}';\n${pdk ? pdkWrapper(entry, runtime) : `export * from ${JSON.stringify(resolve(entry))};\n`}`;
    r = await run({ ...common, stdin: { contents, resolveDir: cwd, sourcefile: wrapper, loader: 'js' }, entryPoints: undefined, ...wasmOptions, plugins: [builtinGuard({ found: [] }), intlPlugin(intl)] }, entry, cwd);
    intlBytes = Buffer.byteLength(codeOf(r)) - plain;
  }
  if (builtins.length > 0) {
    throw buildFailure(
      entry,
      'bundle',
      builtins.map(({ path, importer }) => ({
        file: relative(cwd, importer) || '<bundle>',
        line: 1,
        column: 1,
        message: `"${path}" is a Node.js built-in, which the wasm sandbox does not have; imported through ${importChain(r.metafile, importer, cwd).join(' -> ')}. Use a package (or a build of it) made for browsers or workers, map it away in your package.json "browser" field, or build with --runtime process.`,
      })),
    );
  }
  const code = codeOf(r);
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
  let warnings: DependencyWarning[] = [];
  let dependencyCheck: Bundle['dependencyCheck'];
  if (runtime === 'wasm') {
    const key = keep ? dependencyCheckKey(bundled, cwd, intl?.plan) : '';
    if (lastCheck !== undefined && lastCheck.key === key) {
      warnings = lastCheck.warnings;
      dependencyCheck = 'unchanged';
    } else {
      warnings = dependencyWarnings(await (warningsBuild ?? check()), intl?.plan);
      dependencyCheck = 'bundled';
      if (keep) dependencyChecks.set(checkOf, { key, warnings });
    }
  }
  return { code, map, projectRoot, inputs, exports, pdk, warnings, ...(dependencyCheck ? { dependencyCheck } : {}), ...(intl ? { intl: { ...intl.plan, bytes: intlBytes } } : {}) };
}

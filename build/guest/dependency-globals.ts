/**
 * The sandbox check of a wasm bundle's dependencies (issue 33): the type check covers only the
 * author's own files, so a package that calls `fetch` or reads `process.env` built without a
 * word and failed at run time (luxon, used the ordinary way, ended in "Intl is not defined").
 * esbuild bundles the guest once more with every such global defined as a marker — esbuild
 * replaces only references that no scope binds, so a local `self` or a method named `process` is
 * left alone — and the source map says which package each marker came from. A package that tests
 * for the global (`typeof process`) is taken to fall back without it and is not named. A package
 * that uses Intl is named with what the build gives it (intl/intl-module.ts).
 */
import type * as esbuild from 'esbuild';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { OWN_BUILD_MAP, parseSourceMap } from '../../host/src/transport/source-map/source-map.ts';
import { MISSING_GLOBALS } from './types/missing-globals.ts';
import type { IntlPlan } from './intl/intl-module.ts';

/** One package's use of a global the sandbox lacks. */
export interface DependencyWarning {
  /** The package's name, e.g. `luxon`. */
  package: string;
  /** The global, e.g. `fetch`. */
  global: string;
  /** What it means and what to do. */
  message: string;
}

// esbuild gives every CommonJS module its own require, module and exports.
const BUNDLER_PROVIDES = new Set(['require', 'module', 'exports']);
const NAMES = [...Object.keys(MISSING_GLOBALS).filter((n) => !BUNDLER_PROVIDES.has(n)), 'Intl'];
const MARK = '__mep_global_';

/** The package a node_modules path belongs to (`@scope/name` or `name`), or undefined. */
export function packageOf(path: string): string | undefined {
  const parts = path.split(/[\\/]/);
  const at = parts.lastIndexOf('node_modules');
  if (at < 0 || at + 1 >= parts.length) return undefined;
  return parts[at + 1]!.startsWith('@') ? `${parts[at + 1]}/${parts[at + 2]}` : parts[at + 1];
}

/** The bundle with every such global marked, from `build` (esbuild's options of the guest's bundle). */
export function markedBuild(build: (options: esbuild.BuildOptions) => Promise<esbuild.BuildResult & { outputFiles: esbuild.OutputFile[] }>): Promise<esbuild.BuildResult & { outputFiles: esbuild.OutputFile[] }> {
  return build({ define: Object.fromEntries(NAMES.map((n) => [n, MARK + n])), sourcemap: 'external', minify: false });
}

function digestOf(path: string): string {
  try {
    return createHash('sha256').update(readFileSync(path)).digest('hex');
  } catch {
    return ''; // gone since esbuild read it: the key differs from any it had
  }
}

/**
 * What the sandbox check of a bundle depends on, from the guest bundle's own metafile (`cwd`: its
 * working directory): each package file in it — its path, the digest of its content and how many
 * of its bytes the bundle kept (what tree shaking left of it) — and the Intl the guest carries.
 * The author's own files are not in it: {@link dependencyWarnings} names packages only, and
 * esbuild marks a global in a file from that file alone. An edit of the author's code that
 * reaches no new package code leaves it unchanged, so a watch need not bundle again to check.
 */
export function dependencyCheckKey(metafile: esbuild.Metafile, cwd: string, intl: IntlPlan | undefined): string {
  const kept = new Map<string, number>();
  for (const output of Object.values(metafile.outputs)) {
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) kept.set(input, (kept.get(input) ?? 0) + bytesInOutput);
  }
  const hash = createHash('sha256').update(JSON.stringify(intl ?? null));
  for (const input of Object.keys(metafile.inputs).sort()) {
    if (input.includes(':') || packageOf(input) === undefined) continue;
    hash.update(`\0${input}\0${digestOf(resolve(cwd, input))}\0${kept.get(input) ?? 0}`);
  }
  return hash.digest('hex');
}

/**
 * The warnings for the packages of the marked bundle `r` ({@link markedBuild}).
 * `intl`: what the bundle carries of Intl, for the packages that use it.
 */
export function dependencyWarnings(r: esbuild.BuildResult & { outputFiles: esbuild.OutputFile[] }, intl: IntlPlan | undefined): DependencyWarning[] {
  const code = r.outputFiles.find((f) => !f.path.endsWith('.map'))?.text ?? '';
  const raw = r.outputFiles.find((f) => f.path.endsWith('.map'))?.text;
  if (!code.includes(MARK) || raw === undefined) return [];
  const map = parseSourceMap(raw, OWN_BUILD_MAP);
  const used = new Map<string, Set<string>>(); // package -> globals
  const guarded = new Set<string>(); // package \0 global
  const lines = code.split('\n');
  lines.forEach((text, i) => {
    for (const m of text.matchAll(new RegExp(`(typeof\\s+)?${MARK}(\\w+)`, 'g'))) {
      const at = map.lookup(i + 1, m.index! + 1 + (m[1]?.length ?? 0));
      const pkg = at && packageOf(at.source);
      if (!pkg || pkg === 'mep-runtime' || pkg.startsWith('@formatjs/')) continue;
      if (m[1]) guarded.add(`${pkg}\0${m[2]}`);
      else used.set(pkg, (used.get(pkg) ?? new Set()).add(m[2]!));
    }
  });
  const out: DependencyWarning[] = [];
  for (const [pkg, globals] of used) {
    for (const name of globals) {
      if (guarded.has(`${pkg}\0${name}`)) continue;
      if (name === 'Intl') {
        if (!intl) continue;
        const zones = intl.timeZones === 'all' ? 'every time zone' : `the time zones ${['UTC', ...intl.timeZones].join(', ')}`;
        out.push({ package: pkg, global: name, message: `${pkg} uses \`Intl\`: the guest carries it for the locales ${intl.locales.join(', ')} and ${zones}; any other locale or zone is a RangeError. Add them with mep build --locale TAG and --time-zone ZONE (or --time-zone all).` });
        continue;
      }
      out.push({ package: pkg, global: name, message: `${pkg} uses \`${name}\`, which the wasm sandbox does not have (${MISSING_GLOBALS[name]!.instead}); the code that reaches it fails with a ReferenceError. Use a build of ${pkg} made for browsers or workers, avoid that part of it, or build with --runtime process.` });
    }
  }
  return out.sort((a, b) => (a.package === b.package ? (a.global < b.global ? -1 : 1) : a.package < b.package ? -1 : 1));
}

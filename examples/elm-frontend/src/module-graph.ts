/**
 * What an incremental compile decides with (MEP 0.1, `CompileRequest.baseline`): each module's
 * name, source digest and in-package dependencies, the digest of its public interface once
 * compiled, and the digest of the compile context — everything a module's IR depends on besides
 * its own source. `dependsOn` is the transitive closure of a module's in-package imports,
 * deliberately wider than use: a module can use the types of a module it does not import through
 * one it does (a record alias of `C` reached through a value of `B`), so it is compiled again
 * whenever the interface of any module below it changes.
 */
import type { NormalizedCompileParams } from '../../../guest-pdk/src/index.ts';
import { hexPrefix, sha256, utf8 } from '../../avro/src/sha256.ts';
import { ELM_PATCHES, MORPHIR_ELM_VERSION } from './elm-patches.ts';
import { pathFromJson, pathKey, pathToElm } from './elm-names.ts';
import type { PackageLayout, PlacedModule } from './package-layout.ts';

/** Bumped when the meaning of a module's `ir` in moduleResults changes: older baselines are ignored. */
const MODULE_IR_FORMAT = 'morphir-elm-frontend/module-ir/1';

/** `sha256:` and the hex digest of `text`'s UTF-8 bytes. */
export function digestOf(text: string): string {
  return `sha256:${hexPrefix(sha256(utf8(text)), 32)}`;
}

/** Source digests remembered from one compile to the next (see {@link createSourceDigests}). */
export interface SourceDigests {
  /** {@link digestOf} `text`, remembered for the next compile. */
  of(text: string): string;
  /** Starts a compile: only the texts of the compile before it stay remembered. */
  begin(): void;
  /** How many texts were digested (not found remembered) since this was made. */
  readonly computed: number;
}

/**
 * Digests by source text: a compile digests only the texts the compile before it did not have
 * (in the sandbox, SHA-256 of the 60-module model's 300 KB of sources is interpreted work on every
 * compile: 10–15 % of a one-module incremental compile). The text itself is the key, so a
 * remembered digest is the text's by construction; the memory is one compile's texts.
 */
export function createSourceDigests(): SourceDigests {
  let last = new Map<string, string>();
  let current = new Map<string, string>();
  let computed = 0;
  return {
    of(text) {
      let digest = current.get(text) ?? last.get(text);
      if (digest === undefined) {
        digest = digestOf(text);
        computed++;
      }
      current.set(text, digest);
      return digest;
    },
    begin() {
      last = current;
      current = new Map();
    },
    get computed() {
      return computed;
    },
  };
}

/** The digests of this instance's compiles (a guest serves one compile at a time). */
const SHARED_DIGESTS = createSourceDigests();

/** One module of the package as the incremental compile sees it. */
export interface GraphModule {
  /** The name relative to the package, as the documents spell it (`moduleResults[].name`). */
  name: string;
  placed: PlacedModule;
  sourceDigest: string;
  /** In-package modules it imports, directly or through others (sorted). */
  dependsOn: string[];
}

/** The package's modules by name, in document order. */
export type ModuleGraph = Map<string, GraphModule>;

/** The module's name relative to the package. */
export function relativeName(layout: PackageLayout, placed: PlacedModule): string {
  return placed.compiledName!.split('.').slice(layout.packagePath.length).join('.');
}

/** The in-package modules of `layout` with their digests (from `digests`) and transitive in-package imports. */
export function moduleGraph(layout: PackageLayout, digests: SourceDigests = SHARED_DIGESTS): ModuleGraph {
  digests.begin();
  const inPackage = layout.modules.filter((m) => m.path !== undefined && m.header !== undefined);
  const prefix = pathToElm(layout.packagePath);
  const direct = new Map<string, string[]>();
  for (const m of inPackage) {
    const imported = m.header!.imports.map((i) => layout.byCompiledName(layout.relative ? `${prefix}.${i.module}` : i.module)).filter((p): p is PlacedModule => p?.path !== undefined);
    direct.set(relativeName(layout, m), imported.map((p) => relativeName(layout, p)));
  }
  const closure = new Map<string, Set<string>>();
  const reach = (name: string, visiting: Set<string>): Set<string> => {
    const known = closure.get(name);
    if (known) return known;
    const out = new Set<string>();
    visiting.add(name);
    for (const dep of direct.get(name) ?? []) {
      out.add(dep);
      // An import cycle is the compiler's error to report; here it only stops the walk.
      if (!visiting.has(dep)) for (const d of reach(dep, visiting)) out.add(d);
    }
    visiting.delete(name);
    out.delete(name);
    closure.set(name, out);
    return out;
  };
  const graph: ModuleGraph = new Map();
  for (const m of inPackage) {
    const name = relativeName(layout, m);
    graph.set(name, { name, placed: m, sourceDigest: digests.of(m.document.text), dependsOn: [...reach(name, new Set())].sort() });
  }
  return graph;
}

/**
 * The digest of everything besides a module's source that its IR depends on: this frontend and
 * morphir-elm (their versions and edits: morphir-elm carries the Morphir SDK, Elm's prelude), the
 * IR version, `typesOnly`, the package's name and exposed modules, how names are placed, and the
 * dependency distributions.
 */
export function contextDigestOf(params: NormalizedCompileParams, layout: PackageLayout, irVersion: string): string {
  const context = [
    MODULE_IR_FORMAT,
    `morphir-elm ${MORPHIR_ELM_VERSION}`,
    ELM_PATCHES.map((p) => p.name),
    irVersion,
    params.options?.typesOnly === true,
    params.package.name,
    params.package.exposedModules ?? null,
    layout.relative,
    (params.dependencies ?? []).map((d) => [d.packageName, d.irVersion, d.distribution]),
  ];
  return digestOf(JSON.stringify(context));
}

/** A v3 module entry as morphir-elm writes it: `[path, { access, value }]`. */
export type ModuleEntry = [unknown, { access: string; value: { types?: unknown[]; values?: unknown[] } }];

/** `value` as a module entry of `placed`'s path, or undefined when it is not one. */
export function moduleEntryFor(value: unknown, placed: PlacedModule): ModuleEntry | undefined {
  if (!Array.isArray(value) || value.length !== 2) return undefined;
  const path = pathFromJson(value[0]);
  const body = value[1] as { access?: unknown; value?: unknown } | null;
  if (!path || pathKey(path) !== pathKey(placed.path!) || body === null || typeof body !== 'object') return undefined;
  if (body.access !== 'Public' && body.access !== 'Private') return undefined;
  const def = body.value as { types?: unknown; values?: unknown } | null;
  if (def === null || typeof def !== 'object' || !Array.isArray(def.types) || !Array.isArray(def.values)) return undefined;
  return value as ModuleEntry;
}

/**
 * The digest of a compiled module's interface: its types in full and the signatures (not the
 * bodies) of its values, which is all that compiling another module reads of it.
 */
export function interfaceDigestOf(entry: ModuleEntry): string {
  const def = entry[1].value;
  const values = (def.values ?? []).map((v) => {
    const [name, ac] = v as [unknown, { access?: unknown; value?: { value?: { inputTypes?: unknown; outputType?: unknown } } }];
    return [name, ac?.access, ac?.value?.value?.inputTypes ?? null, ac?.value?.value?.outputType ?? null];
  });
  return digestOf(JSON.stringify([def.types ?? [], values]));
}

/**
 * Places the request's documents in the package the compiler builds. morphir-elm takes a module
 * into package `P` only when its name starts with `P` (`Acme.Customer.Customer` in
 * `Acme.Customer`) and silently leaves every other module out. A Morphir project follows that
 * rule; the one-file path of MEP 0.1 does not (`Example.elm` in the host's synthesized package
 * `local/example`). So when no document's module starts with the package name, the names are read
 * as relative to the package: the compiler sees `module Local.Example.Example` (and `import
 * Local.Example.Util as Util` for imports between the documents), and every position it reports
 * on those lines is mapped back to the document's own text. When some modules do start with it,
 * morphir-elm's rule stands and each module that does not is reported as left out.
 */
import type { NormalizedCompileParams, SourceDocument } from '../../../host/src/protocol/index.ts';
import { ErrorCode, MepError } from '../../../host/src/protocol/errors.ts';
import { sourcePaths } from '../../../host/src/protocol/source-paths.ts';
import type { AuthorDiagnostic } from '../../../guest-pdk/src/index.ts';
import { ELM_CODES, elmDiagnostic } from './diagnostic.ts';
import { isPathPrefix, pathFromString, pathKey, pathToElm, type MorphirPath } from './elm-names.ts';
import { readModuleHeader, type ModuleHeader } from './module-header.ts';
import { createLineIndex, rangeAt, type LineIndex, type Position } from './text-positions.ts';

/** One document as the compiler gets it. */
export interface PlacedModule {
  document: SourceDocument;
  /** Its key in the compiler's file snapshot (the document's identity, ending in `.elm`). */
  key: string;
  header?: ModuleHeader;
  /** The name the compiler sees: the declared one, or `<Package>.<declared>` when read as relative. */
  compiledName?: string;
  /** Its module path inside the package, as the IR names it (undefined outside the package). */
  path?: MorphirPath;
  /** Lines of the document's own text. */
  source: LineIndex;
  /** Lines of the text the compiler gets. */
  compiled: LineIndex;
  /** A position in the compiler's text, as a position in the document. */
  toDocument(position: Position): Position;
}

/** The documents placed in the package. */
export interface PackageLayout {
  packagePath: MorphirPath;
  /** True when module names were read as relative to the package. */
  relative: boolean;
  /** The modules the compiler gets, in document order. */
  modules: PlacedModule[];
  fileSnapshot: Record<string, string>;
  /** Found before compiling: a module declared twice (error), one outside the package (warning). */
  diagnostics: AuthorDiagnostic[];
  byCompiledName(name: string): PlacedModule | undefined;
  byPath(path: MorphirPath): PlacedModule | undefined;
  byKey(key: string): PlacedModule | undefined;
}

interface Insertion {
  /** Offset in the document's text. */
  at: number;
  text: string;
}

/** The document's text with `insertions` (sorted by offset) made. */
function applyInsertions(text: string, insertions: readonly Insertion[]): string {
  let out = '';
  let from = 0;
  for (const { at, text: inserted } of insertions) {
    out += text.slice(from, at) + inserted;
    from = at;
  }
  return out + text.slice(from);
}

/** A compiled-text offset as a document offset; inside an inserted text, where it was inserted. */
function documentOffset(offset: number, insertions: readonly Insertion[]): number {
  let shift = 0;
  for (const { at, text } of insertions) {
    if (offset < at + shift) break;
    if (offset < at + shift + text.length) return at;
    shift += text.length;
  }
  return offset - shift;
}

/** The insertions that make `header`'s module, and its imports of `local` modules, package-relative. */
function relativeInsertions(header: ModuleHeader, prefix: string, local: ReadonlySet<string>): Insertion[] {
  const insertions: Insertion[] = [{ at: header.nameStart, text: `${prefix}.` }];
  for (const i of header.imports) {
    if (!local.has(i.module)) continue;
    insertions.push({ at: i.start, text: `${prefix}.` });
    // `import Util` qualifies as `Util.x`: keep that name for the renamed module.
    if (i.alias === undefined) insertions.push({ at: i.end, text: ` as ${i.module}` });
  }
  return insertions;
}

/** Lays out `params.sources` in `params.package`; throws MepError(-32602) for unusable identities. */
export function layoutPackage(params: NormalizedCompileParams): PackageLayout {
  const packagePath = pathFromString(params.package.name);
  if (packagePath.length === 0 || packagePath.some((name) => name.length === 0)) {
    throw new MepError(ErrorCode.InvalidParams, `Invalid params for morphir.frontend.compile: package.name '${params.package.name}' is not a Morphir package name; send dotted or slashed words such as 'acme/orders' or 'Acme.Orders'.`, {
      data: { package: params.package.name },
    });
  }
  const placed = sourcePaths(params.sources).map(({ document, path }) => ({ document, key: path.endsWith('.elm') ? path : `${path}.elm`, header: readModuleHeader(document.text) }));
  const declared = placed.filter((p) => p.header !== undefined);
  const relative = declared.length > 0 && declared.every((p) => !isPathPrefix(packagePath, pathFromString(p.header!.name)));
  const prefix = pathToElm(packagePath);
  const local = new Set(declared.map((p) => p.header!.name));
  const diagnostics: AuthorDiagnostic[] = [];
  const modules: PlacedModule[] = [];
  const names = new Map<string, PlacedModule>();
  const keys = new Map<string, PlacedModule>();
  const fileSnapshot: Record<string, string> = {};
  for (const { document, key, header } of placed) {
    const insertions = header && relative ? relativeInsertions(header, prefix, local) : [];
    const text = applyInsertions(document.text, insertions);
    const source = createLineIndex(document.text);
    const compiled = createLineIndex(text);
    const compiledName = header ? (relative ? `${prefix}.${header.name}` : header.name) : undefined;
    const fullPath = compiledName === undefined ? undefined : pathFromString(compiledName);
    const inPackage = fullPath !== undefined && isPathPrefix(packagePath, fullPath);
    const nameAt = header ? rangeAt(source.positionAt(header.nameStart), header.nameEnd - header.nameStart) : undefined;
    const twin = compiledName === undefined ? undefined : names.get(compiledName);
    if (twin) {
      diagnostics.push(elmDiagnostic('error', ELM_CODES.duplicateModule, `Module ${header!.name} is declared twice: here and in ${twin.document.uri}. Each module must be in one document.`, document.uri, nameAt));
      continue;
    }
    if (header && !inPackage) {
      diagnostics.push(
        elmDiagnostic(
          'warning',
          ELM_CODES.outsidePackage,
          `Module ${header.name} is not in package ${params.package.name} (its name does not start with ${prefix}), so morphir-elm leaves it out of the IR; name it ${prefix}.${header.name} to include it.`,
          document.uri,
          nameAt,
        ),
      );
    }
    const module: PlacedModule = {
      document,
      key,
      header,
      compiledName,
      path: inPackage ? fullPath!.slice(packagePath.length) : undefined,
      source,
      compiled,
      toDocument: (position) => source.positionAt(documentOffset(compiled.offsetAt(position), insertions)),
    };
    if (keys.has(key)) {
      throw new MepError(ErrorCode.InvalidParams, `Invalid params for morphir.frontend.compile: documents ${keys.get(key)!.document.uri} and ${document.uri} are both read as ${key}; send each source once.`, { data: { uri: document.uri, key } });
    }
    if (compiledName !== undefined) names.set(compiledName, module);
    keys.set(key, module);
    modules.push(module);
    fileSnapshot[key] = text;
  }
  const byPathKey = new Map(modules.filter((m) => m.path).map((m) => [pathKey(m.path!), m]));
  return {
    packagePath,
    relative,
    modules,
    fileSnapshot,
    diagnostics,
    byCompiledName: (name) => names.get(name),
    byPath: (path) => byPathKey.get(pathKey(path)),
    byKey: (key) => keys.get(key),
  };
}

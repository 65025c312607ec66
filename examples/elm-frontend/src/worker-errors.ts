/**
 * morphir-elm's build errors as MEP diagnostics: each located in the document it is about, with a
 * zero-based range, and worded like a compiler's. The compiler reports parse errors and mapping
 * errors with positions, but type and resolution errors only with a module and a name: those are
 * pointed at the declaration or import the name belongs to. The raw error stays in `data`.
 */
import type { AuthorDiagnostic } from '../../../guest-pdk/src/index.ts';
import { ELM_CODES, elmDiagnostic } from './diagnostic.ts';
import { nameFromString, pathFromJson, pathFromString, pathKey, pathToElm, toCamelCase, toTitleCase, type MorphirName } from './elm-names.ts';
import type { PackageLayout, PlacedModule } from './package-layout.ts';
import { resolveErrorText } from './resolve-error-text.ts';
import { rangeAt, type Range } from './text-positions.ts';
import { typeErrorText } from './type-error-text.ts';
import { parseProblemText } from './parse-problem-text.ts';

type Json = unknown;

const list = (value: Json): Json[] => (Array.isArray(value) ? value : []);
const words = (value: Json): MorphirName => list(value).map(String);
const sameName = (a: MorphirName, b: MorphirName): boolean => a.length === b.length && a.every((w, i) => w === b[i]);

/** Where a diagnostic goes: a module, and a range in its document when known. */
interface Place {
  module?: PlacedModule;
  range?: Range;
}

/** The locating and wording context of one request. */
class Locator {
  constructor(readonly layout: PackageLayout) {}

  /** A module name the way the user wrote it (without the package prefix of a relative read). */
  show = (elmName: string): string => {
    const prefix = `${pathToElm(this.layout.packagePath)}.`;
    return this.layout.relative && elmName.startsWith(prefix) ? elmName.slice(prefix.length) : elmName;
  };

  moduleAtPath(path: Json): PlacedModule | undefined {
    const p = pathFromJson(path);
    return p ? this.layout.byPath(p) : undefined;
  }

  /** An IR module path as the user's module name. */
  moduleText(path: Json): string {
    const module = this.moduleAtPath(path);
    return module?.header?.name ?? pathToElm(pathFromJson(path) ?? []);
  }

  /** The module's name in its header. */
  header(module: PlacedModule | undefined): Place {
    const h = module?.header;
    return { module, range: h ? rangeAt(module!.source.positionAt(h.nameStart), h.nameEnd - h.nameStart) : undefined };
  }

  /** Where `module` imports the module the user calls `imported`, else its header. */
  importLine(module: PlacedModule | undefined, imported: string): Place {
    const target = pathKey(pathFromString(imported));
    const i = module?.header?.imports.find((d) => pathKey(pathFromString(d.module)) === target);
    return i ? { module, range: rangeAt(module!.source.positionAt(i.start), i.end - i.start) } : this.header(module);
  }

  /** The top-level declaration of `name` (a value, or a type with `type`), else the header. */
  declaration(module: PlacedModule | undefined, name: MorphirName, type = false): Place {
    if (!module) return {};
    const pattern = type ? /^type[ \t]+(?:alias[ \t]+)?([A-Z][A-Za-z0-9_]*)/ : /^([a-z][A-Za-z0-9_]*)(?=[\s:=])/;
    for (let line = 0; line < module.source.lineCount; line++) {
      const m = pattern.exec(module.source.line(line));
      if (m && sameName(nameFromString(m[1]), name)) {
        const character = m[0].length - m[1].length;
        return { module, range: rangeAt({ line, character }, m[1].length) };
      }
    }
    return this.header(module);
  }

  /** A type or value named by an FQName (`[package, module, local]`). */
  fqn(fqn: Json, type: boolean): Place {
    const [, mod, local] = list(fqn);
    return this.declaration(this.moduleAtPath(mod), words(local), type);
  }

  /**
   * A source location of the mapper (`{location: [row, col, endRow, endCol], moduleName}`, rows
   * and columns one-based). The compiler leaves `moduleName` empty for some type annotations: the
   * module is then the only one whose text at that range spells `spelled`.
   */
  sourceLocation(location: Json, spelled?: string): Place {
    const { location: at, moduleName } = (location ?? {}) as { location?: Json; moduleName?: Json };
    const [r1, c1, r2, c2] = list(at).map(Number);
    const named = list(moduleName).length > 0 ? this.layout.byCompiledName(list(moduleName).map(String).join('.')) : undefined;
    const candidates = named ? [named] : this.layout.modules.filter((m) => spelled === undefined || this.spells(m, r1, c1, r2, c2, spelled));
    const module = candidates.length === 1 ? candidates[0] : undefined;
    if (!module || !Number.isFinite(r1)) return { module };
    const start = module.toDocument(module.compiled.fromElm(r1, c1));
    const end = module.toDocument(module.compiled.fromElm(r2, c2));
    return { module, range: { start, end: end.line > start.line || end.character >= start.character ? end : start } };
  }

  private spells(module: PlacedModule, r1: number, c1: number, r2: number, c2: number, spelled: string): boolean {
    if (r1 !== r2) return false;
    const start = module.compiled.fromElm(r1, c1).character;
    const end = module.compiled.fromElm(r2, c2).character;
    const text = module.compiled.line(r1 - 1).slice(start, end);
    return text === spelled || text.endsWith(`.${spelled}`);
  }
}

function at(locator: Locator, severity: 'error', code: string, message: string, place: Place, raw: Json): AuthorDiagnostic {
  const where = place.module ? undefined : locator.layout.modules.length === 1 ? locator.layout.modules[0] : undefined;
  const module = place.module ?? where;
  return elmDiagnostic(severity, code, message, module?.document.uri, place.module ? place.range : undefined, { morphirElm: raw });
}

function mappingError(l: Locator, error: Json): AuthorDiagnostic {
  const node = list(error);
  switch (node[0]) {
    case 'ResolveError': {
      const text = resolveErrorText(node[2], l.show);
      return at(l, 'error', ELM_CODES.resolve, text.message, l.sourceLocation(node[1], text.spelled), error);
    }
    case 'SameNameAppearsMultipleTimesInPattern':
      return at(l, 'error', ELM_CODES.duplicate, `The names ${list(node[2]).map(String).join(', ')} appear more than once in this pattern.`, l.sourceLocation(node[1]), error);
    case 'VariableNameCollision':
      return at(l, 'error', ELM_CODES.duplicate, `The variable ${String(node[2])} is already defined here; choose another name.`, l.sourceLocation(node[1], String(node[2])), error);
    case 'UnresolvedVariable':
      return at(l, 'error', ELM_CODES.resolve, `Cannot find the variable ${String(node[2])}.`, l.sourceLocation(node[1], String(node[2])), error);
    case 'TypeCheckError':
      return at(l, 'error', ELM_CODES.type, `Type error in module ${l.moduleText(node[1])}: ${typeErrorText(node[2]).join('; ')}.`, l.header(l.moduleAtPath(node[1])), error);
    default:
      // morphir-elm encodes EmptyApply, NotSupported and RecordPatternNotSupported alike.
      return at(l, 'error', ELM_CODES.unsupported, 'morphir-elm cannot translate this to Morphir IR: the construct is not supported (for example a record pattern).', l.sourceLocation(node[1]), error);
  }
}

function repoError(l: Locator, error: Json): AuthorDiagnostic[] {
  const node = list(error);
  switch (node[0]) {
    case 'TypeCheckError': {
      const value = toCamelCase(words(node[2]));
      return [at(l, 'error', ELM_CODES.type, `Type error in ${value}: ${typeErrorText(node[3]).join('; ')}.`, l.declaration(l.moduleAtPath(node[1]), words(node[2])), error)];
    }
    case 'CannotInsertType': {
      const cause = repoError(l, node[3])[0]?.message ?? JSON.stringify(node[3]);
      return [at(l, 'error', ELM_CODES.compiler, `Type ${toTitleCase(words(node[2]))} cannot be added: ${cause}`, l.declaration(l.moduleAtPath(node[1]), words(node[2]), true), error)];
    }
    case 'ModuleAlreadyExist':
      return [at(l, 'error', ELM_CODES.duplicateModule, `Module ${l.moduleText(node[1])} is defined twice.`, l.header(l.moduleAtPath(node[1])), error)];
    case 'TypeAlreadyExist':
      return [at(l, 'error', ELM_CODES.duplicate, `Type ${toTitleCase(words(list(node[1])[2]))} is defined twice.`, l.fqn(node[1], true), error)];
    case 'ValueAlreadyExist':
      return [at(l, 'error', ELM_CODES.duplicate, `Value ${toCamelCase(words(node[1]))} is defined twice.`, {}, error)];
    case 'TypeCycleDetected':
    case 'ValueCycleDetected': {
      const [from, to] = list(node[1]);
      const type = node[0] === 'TypeCycleDetected';
      const name = (f: Json) => (type ? toTitleCase : toCamelCase)(words(list(f)[2]));
      return [at(l, 'error', type ? ELM_CODES.typeCycle : ELM_CODES.valueCycle, `${name(from)} and ${name(to)} depend on each other in a cycle.`, l.fqn(from, type), error)];
    }
    case 'ModuleCycleDetected': {
      const [from, to] = list(node[1]);
      return [at(l, 'error', ELM_CODES.moduleCycle, `Modules ${l.moduleText(from)} and ${l.moduleText(to)} import each other (directly or through others).`, l.importLine(l.moduleAtPath(from), l.moduleText(to)), error)];
    }
    default:
      return [at(l, 'error', ELM_CODES.compiler, `morphir-elm could not build the package: ${JSON.stringify(error).slice(0, 400)}`, {}, error)];
  }
}

function buildError(l: Locator, error: Json): AuthorDiagnostic[] {
  const node = list(error);
  switch (node[0]) {
    case 'ParserError': {
      const module = l.layout.byKey(String(node[1]));
      const ends = list(node[2]).map((d) => d as { row: number; col: number; problem: Json });
      // elm-syntax reports every alternative it tried; the furthest position is the real error.
      const last = ends.reduce<(typeof ends)[number] | undefined>((best, d) => (!best || d.row > best.row || (d.row === best.row && d.col > best.col) ? d : best), undefined);
      const problems = [...new Set(ends.filter((d) => d.row === last?.row && d.col === last?.col).map((d) => parseProblemText(d.problem)))];
      const range = module && last ? rangeAt(module.toDocument(module.compiled.fromElm(last.row, last.col)), 1) : undefined;
      return [at(l, 'error', ELM_CODES.parse, `Syntax error: ${problems.join('; ') || 'the module could not be parsed'}.`, { module, range }, error)];
    }
    case 'ModuleCycleDetected':
      return [at(l, 'error', ELM_CODES.moduleCycle, `Modules ${l.moduleText(node[1])} and ${l.moduleText(node[2])} import each other (directly or through others).`, l.importLine(l.moduleAtPath(node[1]), l.moduleText(node[2])), error)];
    case 'InvalidModuleName':
      return [at(l, 'error', ELM_CODES.invalidModuleName, `The module name ${l.show(list(node[1]).map(String).join('.'))} is not valid here.`, l.header(l.layout.byCompiledName(list(node[1]).map(String).join('.'))), error)];
    case 'RepoError':
      return list(node[2]).flatMap((e) => repoError(l, e));
    case 'MappingError':
      return list(node[1]).map((e) => mappingError(l, e));
    case 'ResolveError': {
      const module = l.moduleAtPath(node[1]);
      const text = resolveErrorText(node[2], l.show);
      return [at(l, 'error', ELM_CODES.resolve, text.message, text.importOf ? l.importLine(module, text.importOf) : l.header(module), error)];
    }
    case 'TypeCycleDetected':
      return [at(l, 'error', ELM_CODES.typeCycle, `Types ${toTitleCase(words(node[1]))} and ${toTitleCase(words(node[2]))} depend on each other in a cycle.`, {}, error)];
    case 'ValueCycleDetected':
      return [at(l, 'error', ELM_CODES.valueCycle, `Values ${toCamelCase(words(list(node[1])[2]))} and ${toCamelCase(words(list(node[2])[2]))} depend on each other in a cycle.`, l.fqn(node[1], false), error)];
    case 'TypeNotFound':
      return [at(l, 'error', ELM_CODES.resolve, `Type ${toTitleCase(words(list(node[1])[2]))} was not found.`, {}, error)];
    default:
      return repoError(l, error);
  }
}

/**
 * The diagnostics of a failed build (`buildFailed` or the error side of `buildCompleted`).
 *
 * @example
 * const diagnostics = workerErrorDiagnostics(outcome.errors, layout);
 */
export function workerErrorDiagnostics(errors: readonly Json[], layout: PackageLayout): AuthorDiagnostic[] {
  const locator = new Locator(layout);
  return errors.flatMap((e) => buildError(locator, e));
}

/**
 * Reads Morphir IR format version 3 (morphir-elm's JSON) into the normalized, body-free
 * {@link ProjectionPackage}: Library distributions only, public modules/types/values only,
 * private-constructor custom types opaque, record fields as `{name, tpe}` or `[name, type]`.
 * {@link readIr} is the entry point for both versions: version 4 goes to ir-reader-v4.ts.
 */
import { AVRO_CODES } from './diagnostics.ts';
import type { Constructor, NamedType, ProjectionModule, ProjectionPackage, TypeDeclaration, TypeExpr, ValueSpecification } from './model.ts';
import { compareStringArrays, compareStrings } from './model.ts';
import { canonicalFqName, canonicalName, canonicalPath } from './naming.ts';
import { IrReadError, normalizeSignature, readFormatVersion } from './ir-version.ts';
import { readIrV4 } from './ir-reader-v4.ts';

export { IrReadError };

type Json = unknown;
const isArray = Array.isArray as (value: unknown) => value is Json[];
const isObject = (value: unknown): value is Record<string, Json> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function fail(path: string, expected: string): never {
  throw new IrReadError(AVRO_CODES.invalidIr, `invalid Morphir IR at ${path}: expected ${expected}`);
}

function array(value: Json, path: string, expected = 'an array'): Json[] {
  return isArray(value) ? value : fail(path, expected);
}

function object(value: Json, path: string): Record<string, Json> {
  return isObject(value) ? value : fail(path, 'an object');
}

/** Memo of canonical names by their words: an IR repeats the same names (SDK paths, fields) throughout. */
const canonicalNames = new Map<string, string>();
const oneWordNames = new Map<string, string>();

function name(value: Json, path: string): string {
  const words = array(value, path, 'a name (array of words)');
  if (words.length === 1 && typeof words[0] === 'string') {
    let canonical = oneWordNames.get(words[0]);
    if (canonical === undefined) {
      if (oneWordNames.size >= 100_000) oneWordNames.clear();
      canonical = canonicalName(words as string[]);
      oneWordNames.set(words[0], canonical);
    }
    return canonical;
  }
  let key = '';
  for (let i = 0; i < words.length; i++) {
    const word = words[i];
    if (typeof word !== 'string') fail(`${path}[${i}]`, 'a string word');
    // Length-prefixed, so no two different word lists share a key.
    key = `${key}${word.length}:${word}`;
  }
  let canonical = canonicalNames.get(key);
  if (canonical === undefined) {
    if (canonicalNames.size >= 100_000) canonicalNames.clear();
    canonical = canonicalName(words as string[]);
    canonicalNames.set(key, canonical);
  }
  return canonical;
}

function modulePath(value: Json, path: string): string[] {
  return array(value, path, 'a path (array of names)').map((segment, i) => name(segment, `${path}[${i}]`));
}

function packagePath(value: Json, path: string): string {
  const segments = array(value, path, 'a path');
  // Well-formed segments (arrays of string words) go through the remembered names.
  if (segments.every((segment) => isArray(segment) && segment.every((word) => typeof word === 'string'))) {
    return segments.map((segment, i) => name(segment, `${path}[${i}]`)).join('/');
  }
  return canonicalPath(segments.map((segment, i) => array(segment, `${path}[${i}]`).map(String)));
}

function fqName(value: Json, path: string): string {
  const parts = array(value, path, 'an FQName [package, module, local]');
  if (parts.length !== 3) fail(path, 'an FQName [package, module, local]');
  return canonicalFqName(packagePath(parts[0], `${path}[0]`), modulePath(parts[1], `${path}[1]`), name(parts[2], `${path}[2]`));
}

function field(value: Json, path: string): NamedType {
  // morphir-elm writes `{name, tpe}`; other producers write `[name, type]`.
  if (isObject(value)) return { name: name(value.name, `${path}.name`), tpe: type(value.tpe, `${path}.tpe`) };
  const pair = array(value, path, 'a field ({name, tpe} or [name, type])');
  if (pair.length !== 2) fail(path, 'a field ({name, tpe} or [name, type])');
  return { name: name(pair[0], `${path}[0]`), tpe: type(pair[1], `${path}[1]`) };
}

function fields(value: Json, path: string): NamedType[] {
  return array(value, path)
    .map((entry, i) => field(entry, `${path}[${i}]`))
    .sort((a, b) => compareStrings(a.name, b.name));
}

/** Read one v3 type expression `[tag, attributes, ...]`. */
export function type(value: Json, path: string): TypeExpr {
  const node = array(value, path, 'a type expression');
  const tag = node[0];
  switch (tag) {
    case 'Variable':
      return { kind: 'variable', name: name(node[2], `${path}[2]`) };
    case 'Reference':
      return {
        kind: 'reference',
        source: fqName(node[2], `${path}[2]`),
        args: array(node[3] ?? [], `${path}[3]`).map((arg, i) => type(arg, `${path}[3][${i}]`)),
      };
    case 'Tuple':
      return { kind: 'tuple', elements: array(node[2], `${path}[2]`).map((e, i) => type(e, `${path}[2][${i}]`)) };
    case 'Record':
      return { kind: 'record', fields: fields(node[2], `${path}[2]`) };
    case 'ExtensibleRecord':
      return { kind: 'extensible', variable: name(node[2], `${path}[2]`), fields: fields(node[3], `${path}[3]`) };
    case 'Function':
      return { kind: 'function', input: type(node[2], `${path}[2]`), output: type(node[3], `${path}[3]`) };
    case 'Unit':
      return { kind: 'unit' };
    default:
      return fail(`${path}[0]`, 'a type tag (Variable, Reference, Tuple, Record, ExtensibleRecord, Function, Unit)');
  }
}

function params(value: Json, path: string): string[] {
  return array(value, path).map((p, i) => name(p, `${path}[${i}]`));
}

function constructors(value: Json, packageName: string, module: readonly string[], path: string): Constructor[] {
  return array(value, path)
    .map((entry, i): Constructor => {
      const pair = array(entry, `${path}[${i}]`, 'a constructor [name, arguments]');
      const ctorName = name(pair[0], `${path}[${i}][0]`);
      const args = array(pair[1], `${path}[${i}][1]`).map((arg, j) => {
        const argPath = `${path}[${i}][1][${j}]`;
        const argPair = array(arg, argPath, 'a constructor argument [name, type]');
        return { name: name(argPair[0], `${argPath}[0]`), tpe: type(argPair[1], `${argPath}[1]`) };
      });
      return { source: canonicalFqName(packageName, module, ctorName), name: ctorName, args };
    })
    .sort((a, b) => compareStrings(a.source, b.source));
}

/** Unwrap `{doc, value}` (Documented); older producers omit the wrapper. */
function documented(value: Json): { doc?: string; value: Json } {
  if (isObject(value) && 'value' in value && (typeof value.doc === 'string' || !('inputTypes' in value))) {
    return { doc: cleanDoc(value.doc), value: value.value };
  }
  return { value };
}

/**
 * morphir-elm keeps the raw `{-| … -}` text (leading space, trailing newline) and writes `""`
 * for undocumented items; trim it and drop empty docs so artifacts carry the author's text.
 */
function cleanDoc(doc: Json): string | undefined {
  if (typeof doc !== 'string') return undefined;
  const trimmed = doc.trim();
  return trimmed === '' ? undefined : trimmed;
}

function isPublic(value: Json, path: string): boolean {
  const access = object(value, path).access;
  if (access !== 'Public' && access !== 'Private') fail(`${path}.access`, '"Public" or "Private"');
  return access === 'Public';
}

function typeDefinition(entry: Json, packageName: string, module: readonly string[], path: string): TypeDeclaration | undefined {
  const pair = array(entry, path, 'a type entry [name, accessControlled]');
  const localName = name(pair[0], `${path}[0]`);
  if (!isPublic(pair[1], `${path}[1]`)) return undefined;
  const { doc, value } = documented(object(pair[1], `${path}[1]`).value);
  const def = array(value, `${path}[1].value`, 'a type definition');
  const source = canonicalFqName(packageName, module, localName);
  const base = { source, name: localName, params: params(def[1], `${path}[1].value[1]`), ...(doc ? { doc } : {}) };
  switch (def[0]) {
    case 'TypeAliasDefinition':
    case 'TypeAliasSpecification':
      return { kind: 'alias', ...base, value: type(def[2], `${path}[1].value[2]`) };
    case 'CustomTypeDefinition': {
      const ctorsPath = `${path}[1].value[2]`;
      // A custom type whose constructors are private is opaque to every consumer.
      if (!isPublic(def[2], ctorsPath)) return { kind: 'opaque', ...base };
      return { kind: 'custom', ...base, constructors: constructors(object(def[2], ctorsPath).value, packageName, module, `${ctorsPath}.value`) };
    }
    case 'CustomTypeSpecification':
      return { kind: 'custom', ...base, constructors: constructors(def[2], packageName, module, `${path}[1].value[2]`) };
    case 'OpaqueTypeSpecification':
    case 'DerivedTypeSpecification':
      return { kind: 'opaque', ...base };
    default:
      return fail(`${path}[1].value[0]`, 'a type definition tag');
  }
}

function inputs(value: Json, path: string): NamedType[] {
  return array(value, path).map((entry, i) => {
    // Definitions carry `[name, valueAttributes, type]`; specifications carry `[name, type]`.
    const parts = array(entry, `${path}[${i}]`, 'a value input');
    const typeIndex = parts.length >= 3 ? 2 : 1;
    return { name: name(parts[0], `${path}[${i}][0]`), tpe: type(parts[typeIndex], `${path}[${i}][${typeIndex}]`) };
  });
}

function valueSpec(localName: string, source: string, raw: Json, path: string): ValueSpecification {
  const { doc, value } = documented(raw);
  const def = object(value, path);
  const isDefinition = 'inputTypes' in def;
  const declared = inputs(isDefinition ? def.inputTypes : def.inputs, `${path}.${isDefinition ? 'inputTypes' : 'inputs'}`);
  const signature = normalizeSignature(declared, type(isDefinition ? def.outputType : def.output, `${path}.output`));
  return { source, name: localName, ...signature, ...(doc ? { doc } : {}) };
}

function moduleDefinition(packageName: string, module: string[], def: Record<string, Json>, path: string, specification: boolean): ProjectionModule {
  const types: TypeDeclaration[] = [];
  array(def.types ?? [], `${path}.types`).forEach((entry, i) => {
    const tPath = `${path}.types[${i}]`;
    if (specification) {
      // Specifications list only exposed items, without access control.
      const pair = array(entry, tPath);
      const declaration = typeDefinition([pair[0], { access: 'Public', value: pair[1] }], packageName, module, tPath);
      if (declaration) types.push(declaration);
      return;
    }
    const declaration = typeDefinition(entry, packageName, module, tPath);
    if (declaration) types.push(declaration);
  });
  const values: ValueSpecification[] = [];
  array(def.values ?? [], `${path}.values`).forEach((entry, i) => {
    const vPath = `${path}.values[${i}]`;
    const pair = array(entry, vPath, 'a value entry [name, value]');
    const localName = name(pair[0], `${vPath}[0]`);
    let raw = pair[1];
    if (!specification) {
      if (!isPublic(raw, `${vPath}[1]`)) return;
      raw = object(raw, `${vPath}[1]`).value;
    }
    values.push(valueSpec(localName, canonicalFqName(packageName, module, localName), raw, `${vPath}[1]`));
  });
  types.sort((a, b) => compareStrings(a.source, b.source));
  values.sort((a, b) => compareStrings(a.source, b.source));
  const doc = cleanDoc(def.doc);
  return { path: module, types, values, ...(doc ? { doc } : {}) };
}

function modules(value: Json, packageName: string, path: string, specification: boolean): ProjectionModule[] {
  const out: ProjectionModule[] = [];
  array(value, path).forEach((entry, i) => {
    const mPath = `${path}[${i}]`;
    const pair = array(entry, mPath, 'a module entry [path, definition]');
    const module = modulePath(pair[0], `${mPath}[0]`);
    if (specification) {
      out.push(moduleDefinition(packageName, module, object(pair[1], `${mPath}[1]`), `${mPath}[1]`, true));
    } else if (isPublic(pair[1], `${mPath}[1]`)) {
      out.push(moduleDefinition(packageName, module, object(object(pair[1], `${mPath}[1]`).value, `${mPath}[1].value`), `${mPath}[1].value`, false));
    }
  });
  return out.sort((a, b) => compareStringArrays(a.path, b.path));
}

/**
 * Read a Morphir IR document (formatVersion 3 or "3.0.0", 4 or "4.0.0") into its public surface;
 * the version decides the reader, and both give the same model for the same Morphir package.
 * @throws {IrReadError} with `missing_format_version`, `unsupported_format_version_major`,
 * `invalid_ir` or another version code.
 */
export function readIr(ir: unknown): ProjectionPackage {
  const format = readFormatVersion(ir);
  const root = ir as Record<string, Json>;
  if (format === 4) return readIrV4(root);
  const distribution = array(root.distribution, 'distribution', 'a distribution ["Library", package, dependencies, definition]');
  if (distribution[0] !== 'Library') fail('distribution[0]', '"Library" (IR v3 has only Library distributions)');
  const packageName = packagePath(distribution[1], 'distribution[1]');
  const dependencies = array(distribution[2], 'distribution[2]')
    .map((entry, i) => {
      const pair = array(entry, `distribution[2][${i}]`, 'a dependency [package, specification]');
      const dependencyName = packagePath(pair[0], `distribution[2][${i}][0]`);
      const spec = object(pair[1], `distribution[2][${i}][1]`);
      return { packageName: dependencyName, modules: modules(spec.modules ?? [], dependencyName, `distribution[2][${i}][1].modules`, true) };
    })
    .sort((a, b) => compareStrings(a.packageName, b.packageName));
  const definition = object(distribution[3], 'distribution[3]');
  return { packageName, dependencies, modules: modules(definition.modules, packageName, 'distribution[3].modules', false) };
}

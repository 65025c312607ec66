/**
 * Reads Morphir IR format version 3 (morphir-elm's JSON) into the normalized, body-free
 * {@link ProjectionPackage}: Library distributions only, public modules/types/values only,
 * private-constructor custom types opaque, record fields as `{name, tpe}` or `[name, type]`.
 * {@link readIr} is the entry point for both versions: version 4 goes to ir-reader-v4.ts.
 *
 * This runs on every node of the IR inside QuickJS, so the per-node code is plain loops without
 * callbacks, and JSON paths for error messages are built only when reading fails.
 */
import { AVRO_CODES } from './diagnostics.ts';
import type { Constructor, NamedType, ProjectionModule, ProjectionPackage, TypeDeclaration, TypeExpr, ValueSpecification } from './model.ts';
import { compareStringArrays, compareStrings, sortByKey } from './model.ts';
import { canonicalFqName, canonicalName, canonicalPath, fqNamePrefix } from './naming.ts';
import { IrReadError, normalizeSignature, readFormatVersion } from './ir-version.ts';
import { readIrV4 } from './ir-reader-v4.ts';
import { knownFqName, knownName, knownReference, rememberFqName, rememberName, rememberReference } from './spelling-cache.ts';

export { IrReadError };

type Json = unknown;
const isArray = Array.isArray as (value: unknown) => value is Json[];
const isObject = (value: unknown): value is Record<string, Json> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Whether JSON paths are spelled out. A path is read only when reading fails, and building
 * `${path}[${i}]` for every node would copy the whole growing prefix each time (QuickJS 2021 has
 * no rope strings), so {@link readIr} reads without paths and, only when that fails, reads the
 * document again with them to report where.
 */
let tracking = false;

/** Thrown by {@link fail} when reading without paths: the document is read again with them. */
const RETRY_WITH_PATHS = new Error('retry with paths');

/**
 * The path of the child at `step`: an index (`[2]`) or a literal suffix (`.tpe`, `[1].value`).
 * The per-node readers (field, fields, types, type) write `tracking ? at(path, step) : path`:
 * in QuickJS the call alone, made for every node while not tracking, was 3 % of the read.
 */
function at(path: string, step: number | string): string {
  if (!tracking) return path;
  return typeof step === 'number' ? `${path}[${step}]` : `${path}${step}`;
}

function fail(path: string, expected: string): never {
  if (!tracking) throw RETRY_WITH_PATHS;
  throw new IrReadError(AVRO_CODES.invalidIr, `invalid Morphir IR at ${path}: expected ${expected}`);
}

function array(value: Json, path: string, expected = 'an array'): Json[] {
  return isArray(value) ? value : fail(path, expected);
}

function object(value: Json, path: string): Record<string, Json> {
  return isObject(value) ? value : fail(path, 'an object');
}

function name(value: Json, path: string): string {
  const known = knownName(value);
  if (known !== undefined) return known;
  const words = array(value, path, 'a name (array of words)');
  for (let i = 0; i < words.length; i++) {
    if (typeof words[i] !== 'string') fail(at(path, i), 'a string word');
  }
  const canonical = canonicalName(words as string[]);
  rememberName(words as string[], canonical);
  return canonical;
}

function modulePath(value: Json, path: string): string[] {
  const segments = array(value, path, 'a path (array of names)');
  const names: string[] = [];
  for (let i = 0; i < segments.length; i++) names.push(name(segments[i], at(path, i)));
  return names;
}

const isWords = (segment: Json): boolean => isArray(segment) && segment.every((word) => typeof word === 'string');

function packagePath(value: Json, path: string): string {
  const segments = array(value, path, 'a path');
  // Well-formed segments (arrays of string words) go through the remembered names.
  if (segments.every(isWords)) {
    const names: string[] = [];
    for (let i = 0; i < segments.length; i++) names.push(name(segments[i], at(path, i)));
    return names.join('/');
  }
  return canonicalPath(segments.map((segment, i) => array(segment, at(path, i)).map(String)));
}

function fqName(value: Json, path: string): string {
  const known = knownFqName(value);
  if (known !== undefined) return known;
  const parts = array(value, path, 'an FQName [package, module, local]');
  if (parts.length !== 3) fail(path, 'an FQName [package, module, local]');
  const canonical = canonicalFqName(packagePath(parts[0], at(path, '[0]')), modulePath(parts[1], at(path, '[1]')), name(parts[2], at(path, '[2]')));
  rememberFqName(parts, canonical);
  return canonical;
}

const NO_ARGS: readonly TypeExpr[] = Object.freeze([]);

/** A reference without arguments to the FQName `value`: one shared object per FQName. */
function plainReference(value: Json, path: string): TypeExpr {
  const known = knownReference(value);
  if (known !== undefined) return known;
  const reference: TypeExpr = { kind: 'reference', source: fqName(value, path), args: NO_ARGS };
  rememberReference(value as Json[], reference);
  return reference;
}

const FIELD = 'a field ({name, tpe} or [name, type])';

function field(value: Json, path: string): NamedType {
  // morphir-elm writes `{name, tpe}`; other producers write `[name, type]`.
  if (!isArray(value)) {
    if (typeof value !== 'object' || value === null) return fail(path, FIELD);
    const named = value as Record<string, Json>;
    return { name: name(named.name, tracking ? at(path, '.name') : path), tpe: type(named.tpe, tracking ? at(path, '.tpe') : path) };
  }
  if (value.length !== 2) fail(path, FIELD);
  return { name: name(value[0], tracking ? at(path, '[0]') : path), tpe: type(value[1], tracking ? at(path, '[1]') : path) };
}

function fields(value: Json, path: string): NamedType[] {
  const entries = array(value, path);
  const out: NamedType[] = [];
  for (let i = 0; i < entries.length; i++) out[i] = field(entries[i], tracking ? at(path, i) : path);
  return sortByKey(out, 'name');
}

/** Type arguments or tuple elements. */
function types(value: Json, path: string): TypeExpr[] {
  const list = array(value, path);
  const out: TypeExpr[] = [];
  for (let i = 0; i < list.length; i++) out[i] = type(list[i], tracking ? at(path, i) : path);
  return out;
}

/** Read one v3 type expression `[tag, attributes, ...]`. */
function type(value: Json, path: string): TypeExpr {
  if (!isArray(value)) return fail(path, 'a type expression');
  // Most common first: a switch compares the cases in order.
  switch (value[0]) {
    case 'Reference': {
      const args = value[3];
      if (args == null || (isArray(args) && args.length === 0)) return plainReference(value[2], tracking ? at(path, '[2]') : path);
      return { kind: 'reference', source: fqName(value[2], tracking ? at(path, '[2]') : path), args: types(args, tracking ? at(path, '[3]') : path) };
    }
    case 'Variable':
      return { kind: 'variable', name: name(value[2], tracking ? at(path, '[2]') : path) };
    case 'Tuple':
      return { kind: 'tuple', elements: types(value[2], tracking ? at(path, '[2]') : path) };
    case 'Record':
      return { kind: 'record', fields: fields(value[2], tracking ? at(path, '[2]') : path) };
    case 'ExtensibleRecord':
      return { kind: 'extensible', variable: name(value[2], tracking ? at(path, '[2]') : path), fields: fields(value[3], tracking ? at(path, '[3]') : path) };
    case 'Function':
      return { kind: 'function', input: type(value[2], tracking ? at(path, '[2]') : path), output: type(value[3], tracking ? at(path, '[3]') : path) };
    case 'Unit':
      return { kind: 'unit' };
    default:
      return fail(at(path, '[0]'), 'a type tag (Variable, Reference, Tuple, Record, ExtensibleRecord, Function, Unit)');
  }
}

function params(value: Json, path: string): string[] {
  const list = array(value, path);
  const out: string[] = [];
  for (let i = 0; i < list.length; i++) out[i] = name(list[i], at(path, i));
  return out;
}

function constructors(value: Json, prefix: string, path: string): Constructor[] {
  const entries = array(value, path);
  const out: Constructor[] = [];
  for (let i = 0; i < entries.length; i++) {
    const entryPath = at(path, i);
    const pair = array(entries[i], entryPath, 'a constructor [name, arguments]');
    const ctorName = name(pair[0], at(entryPath, '[0]'));
    const argsPath = at(entryPath, '[1]');
    const rawArgs = array(pair[1], argsPath);
    const args: NamedType[] = [];
    for (let j = 0; j < rawArgs.length; j++) {
      const argPath = at(argsPath, j);
      const argPair = array(rawArgs[j], argPath, 'a constructor argument [name, type]');
      args[j] = { name: name(argPair[0], at(argPath, '[0]')), tpe: type(argPair[1], at(argPath, '[1]')) };
    }
    out[i] = { source: prefix + ctorName, name: ctorName, args };
  }
  return sortByKey(out, 'source');
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
  if (access !== 'Public' && access !== 'Private') fail(at(path, '.access'), '"Public" or "Private"');
  return access === 'Public';
}

function typeDefinition(entry: Json, prefix: string, path: string): TypeDeclaration | undefined {
  const pair = array(entry, path, 'a type entry [name, accessControlled]');
  const localName = name(pair[0], at(path, '[0]'));
  const accessPath = at(path, '[1]');
  if (!isPublic(pair[1], accessPath)) return undefined;
  const { doc, value } = documented(object(pair[1], accessPath).value);
  const defPath = at(path, '[1].value');
  const def = array(value, defPath, 'a type definition');
  const declaration = typeBody(def, prefix + localName, localName, params(def[1], at(defPath, '[1]')), prefix, defPath);
  // Each kind is built whole rather than spread from shared fields (a property copy per field in
  // QuickJS); only a documented declaration is copied once more.
  return doc === undefined ? declaration : { ...declaration, doc };
}

function typeBody(def: Json[], source: string, localName: string, params: string[], prefix: string, defPath: string): TypeDeclaration {
  switch (def[0]) {
    case 'TypeAliasDefinition':
    case 'TypeAliasSpecification':
      return { kind: 'alias', source, name: localName, params, value: type(def[2], at(defPath, '[2]')) };
    case 'CustomTypeDefinition': {
      const ctorsPath = at(defPath, '[2]');
      // A custom type whose constructors are private is opaque to every consumer.
      if (!isPublic(def[2], ctorsPath)) return { kind: 'opaque', source, name: localName, params };
      return { kind: 'custom', source, name: localName, params, constructors: constructors(object(def[2], ctorsPath).value, prefix, at(ctorsPath, '.value')) };
    }
    case 'CustomTypeSpecification':
      return { kind: 'custom', source, name: localName, params, constructors: constructors(def[2], prefix, at(defPath, '[2]')) };
    case 'OpaqueTypeSpecification':
    case 'DerivedTypeSpecification':
      return { kind: 'opaque', source, name: localName, params };
    default:
      return fail(at(defPath, '[0]'), 'a type definition tag');
  }
}

function inputs(value: Json, path: string): NamedType[] {
  const entries = array(value, path);
  const out: NamedType[] = [];
  for (let i = 0; i < entries.length; i++) {
    // Definitions carry `[name, valueAttributes, type]`; specifications carry `[name, type]`.
    const entryPath = at(path, i);
    const parts = array(entries[i], entryPath, 'a value input');
    const typeIndex = parts.length >= 3 ? 2 : 1;
    out[i] = { name: name(parts[0], at(entryPath, '[0]')), tpe: type(parts[typeIndex], at(entryPath, typeIndex)) };
  }
  return out;
}

function valueSpec(localName: string, source: string, raw: Json, path: string): ValueSpecification {
  const { doc, value } = documented(raw);
  const def = object(value, path);
  const isDefinition = 'inputTypes' in def;
  const declared = inputs(isDefinition ? def.inputTypes : def.inputs, at(path, isDefinition ? '.inputTypes' : '.inputs'));
  const signature = normalizeSignature(declared, type(isDefinition ? def.outputType : def.output, at(path, '.output')));
  return { source, name: localName, ...signature, ...(doc ? { doc } : {}) };
}

function moduleDefinition(packageName: string, module: string[], def: Record<string, Json>, path: string, specification: boolean): ProjectionModule {
  // The FQNames of the module's types, constructors and values all start with this.
  const prefix = fqNamePrefix(packageName, module);
  const types: TypeDeclaration[] = [];
  const typesPath = at(path, '.types');
  const typeEntries = array(def.types ?? [], typesPath);
  for (let i = 0; i < typeEntries.length; i++) {
    const tPath = at(typesPath, i);
    let entry = typeEntries[i];
    if (specification) {
      // Specifications list only exposed items, without access control.
      const pair = array(entry, tPath);
      entry = [pair[0], { access: 'Public', value: pair[1] }];
    }
    const declaration = typeDefinition(entry, prefix, tPath);
    if (declaration) types.push(declaration);
  }
  const values: ValueSpecification[] = [];
  const valuesPath = at(path, '.values');
  const valueEntries = array(def.values ?? [], valuesPath);
  for (let i = 0; i < valueEntries.length; i++) {
    const vPath = at(valuesPath, i);
    const pair = array(valueEntries[i], vPath, 'a value entry [name, value]');
    const localName = name(pair[0], at(vPath, '[0]'));
    const rawPath = at(vPath, '[1]');
    let raw = pair[1];
    if (!specification) {
      if (!isPublic(raw, rawPath)) continue;
      raw = object(raw, rawPath).value;
    }
    values.push(valueSpec(localName, prefix + localName, raw, rawPath));
  }
  sortByKey(types, 'source');
  sortByKey(values, 'source');
  const doc = cleanDoc(def.doc);
  return { path: module, types, values, ...(doc ? { doc } : {}) };
}

function modules(value: Json, packageName: string, path: string, specification: boolean): ProjectionModule[] {
  const out: ProjectionModule[] = [];
  const entries = array(value, path);
  for (let i = 0; i < entries.length; i++) {
    const mPath = at(path, i);
    const pair = array(entries[i], mPath, 'a module entry [path, definition]');
    const module = modulePath(pair[0], at(mPath, '[0]'));
    const defPath = at(mPath, '[1]');
    if (specification) {
      out.push(moduleDefinition(packageName, module, object(pair[1], defPath), defPath, true));
    } else if (isPublic(pair[1], defPath)) {
      const valuePath = at(defPath, '.value');
      out.push(moduleDefinition(packageName, module, object(object(pair[1], defPath).value, valuePath), valuePath, false));
    }
  }
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
  try {
    return readV3(root);
  } catch (error) {
    if (error !== RETRY_WITH_PATHS) throw error;
  }
  // The same read fails at the same node, now with its path.
  tracking = true;
  try {
    return readV3(root);
  } finally {
    tracking = false;
  }
}

function readV3(root: Record<string, Json>): ProjectionPackage {
  const distribution = array(root.distribution, 'distribution', 'a distribution ["Library", package, dependencies, definition]');
  if (distribution[0] !== 'Library') fail('distribution[0]', '"Library" (IR v3 has only Library distributions)');
  const packageName = packagePath(distribution[1], 'distribution[1]');
  const dependencies = array(distribution[2], 'distribution[2]')
    .map((entry, i) => {
      const entryPath = at('distribution[2]', i);
      const pair = array(entry, entryPath, 'a dependency [package, specification]');
      const dependencyName = packagePath(pair[0], at(entryPath, '[0]'));
      const specPath = at(entryPath, '[1]');
      const spec = object(pair[1], specPath);
      return { packageName: dependencyName, modules: modules(spec.modules ?? [], dependencyName, at(specPath, '.modules'), true) };
    })
    .sort((a, b) => compareStrings(a.packageName, b.packageName));
  const definition = object(distribution[3], 'distribution[3]');
  return { packageName, dependencies, modules: modules(definition.modules, packageName, 'distribution[3].modules', false) };
}

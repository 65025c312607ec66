/**
 * Reads Morphir IR format version 4 (draft) into the same normalized {@link ProjectionPackage}
 * as the v3 reader, so every projection, validator and transform works on both. v4 documents in
 * the wild disagree on spelling, so each level accepts every form seen in real documents:
 * - distribution `{"Library": {packageName, dependencies, def}}` or `["Library", name, deps, def]`;
 * - collections (modules, types, values, constructors) as objects keyed by name or `[key, value]` pairs;
 * - access as `{"access": "Public", "value": X}`, `{"Public": X}` or flattened beside the tag;
 * - docs flattened beside the definition tag (`{"doc": …, "TypeAliasDefinition": {…}}`), as a
 *   string or an array of lines.
 * Only Library distributions are read; only public modules, types and values are projected.
 */
import type { Constructor, NamedType, ProjectionDependency, ProjectionModule, ProjectionPackage, TypeDeclaration, ValueSpecification } from './model.ts';
import { compareStringArrays, compareStrings, sortByKey } from './model.ts';
import { normalizeSignature } from './ir-version.ts';
import { canonicalFqName } from './naming.ts';
import {
  entries, fail, isObject, isTag, object, tagOf, v4Fields, v4ModulePath, v4Name, v4PackagePath, v4Type,
  type Json, type JsonObject,
} from './v4-syntax.ts';

type Access = { isPublic: boolean; value: Json; doc?: string };

function docOf(value: Json): string | undefined {
  if (!isObject(value)) return undefined;
  const doc = Array.isArray(value.doc) ? value.doc.filter((l) => typeof l === 'string').join('\n') : value.doc;
  if (typeof doc !== 'string') return undefined;
  const trimmed = doc.trim();
  return trimmed === '' ? undefined : trimmed;
}

/** Unwrap an access-controlled item; `specification` items carry no access and are public. */
function access(raw: Json, path: string, specification: boolean): Access {
  if (specification) return { isPublic: true, value: raw, doc: docOf(raw) };
  const node = object(raw, path);
  if (node.access !== undefined) {
    if (node.access !== 'Public' && node.access !== 'Private') fail(`${path}.access`, '"Public" or "Private"');
    // `{"access", "value"}`, or the definition flattened beside `access` (`{"access", "TypeAliasDefinition"}`).
    const value = 'value' in node ? node.value : node;
    return { isPublic: node.access === 'Public', value, doc: docOf(node) ?? docOf(value) };
  }
  if ('Public' in node || 'Private' in node) {
    const isPublic = 'Public' in node;
    const value = isPublic ? node.Public : node.Private;
    return { isPublic, value, doc: docOf(node) ?? docOf(value) };
  }
  return fail(path, 'an access-controlled item ({"access": "Public", "value": …} or {"Public": …})');
}

function typeParams(content: JsonObject, path: string): string[] {
  const params = content.typeParams ?? [];
  if (!Array.isArray(params)) return fail(`${path}.typeParams`, 'an array of type parameter names');
  return params.map((p, i) => v4Name(p, `${path}.typeParams[${i}]`));
}

function constructorArgs(value: Json, path: string): NamedType[] {
  if (Array.isArray(value)) {
    return value.map((arg, i) => {
      if (!Array.isArray(arg) || arg.length !== 2) return fail(`${path}[${i}]`, 'a constructor argument [name, type]');
      return { name: v4Name(arg[0], `${path}[${i}][0]`), tpe: v4Type(arg[1], `${path}[${i}][1]`) };
    });
  }
  // Arguments keep their declared order (object keys keep insertion order for names).
  return entries(value, path).map(([k, v, p]) => ({ name: v4Name(k, p), tpe: v4Type(v, p) }));
}

function constructors(value: Json, packageName: string, module: readonly string[], path: string): Constructor[] {
  const out = entries(value, path).map(([k, v, p]): Constructor => {
    const name = v4Name(k, p);
    return { source: canonicalFqName(packageName, module, name), name, args: constructorArgs(v ?? {}, p) };
  });
  return sortByKey(out, 'source');
}

function typeDeclaration(rawName: Json, raw: Json, packageName: string, module: readonly string[], path: string, specification: boolean): TypeDeclaration | undefined {
  const item = access(raw, path, specification);
  if (!item.isPublic) return undefined;
  const tagged = tagOf(item.value);
  if (!tagged) return fail(path, 'a type definition ({"TypeAliasDefinition": …}, {"CustomTypeDefinition": …}, …)');
  const name = v4Name(rawName, path);
  const content = isObject(tagged.content) ? tagged.content : {};
  const p = `${path}.${tagged.tag}`;
  const doc = item.doc ?? docOf(content);
  const base = { source: canonicalFqName(packageName, module, name), name, params: typeParams(content, p), ...(doc ? { doc } : {}) };
  switch (tagged.tag) {
    case 'TypeAliasDefinition':
    case 'TypeAliasSpecification':
      return { kind: 'alias', ...base, value: v4Type(content.typeExp, `${p}.typeExp`) };
    case 'CustomTypeDefinition': {
      const ctors = access(content.accessControlledConstructors ?? content.constructors, `${p}.accessControlledConstructors`, false);
      // A custom type whose constructors are private is opaque to every consumer.
      if (!ctors.isPublic) return { kind: 'opaque', ...base };
      return { kind: 'custom', ...base, constructors: constructors(ctors.value, packageName, module, `${p}.accessControlledConstructors`) };
    }
    case 'CustomTypeSpecification':
      return { kind: 'custom', ...base, constructors: constructors(content.constructors, packageName, module, `${p}.constructors`) };
    case 'OpaqueTypeSpecification':
    case 'DerivedTypeSpecification':
    case 'IncompleteTypeDefinition':
      return { kind: 'opaque', ...base };
    default:
      return fail(`${path}.${tagged.tag}`, 'a type definition tag');
  }
}

function inputs(value: Json, path: string): NamedType[] {
  if (Array.isArray(value)) {
    // `[name, attributes, type]` in definitions, `[name, type]` in specifications.
    return value.map((entry, i) => {
      if (!Array.isArray(entry) || entry.length < 2) return fail(`${path}[${i}]`, 'a value input');
      const typeIndex = entry.length >= 3 ? 2 : 1;
      return { name: v4Name(entry[0], `${path}[${i}][0]`), tpe: v4Type(entry[typeIndex], `${path}[${i}][${typeIndex}]`) };
    });
  }
  // `{name: type}` or `{name: {"type": type}}` (an input with attributes).
  return entries(value, path).map(([k, v, p]) => ({
    name: v4Name(k, p),
    tpe: v4Type(isObject(v) && 'type' in v && !Object.keys(v).some(isTag) ? v.type : v, p),
  }));
}

function valueSpecification(rawName: Json, raw: Json, packageName: string, module: readonly string[], path: string, specification: boolean): ValueSpecification | undefined {
  const item = access(raw, path, specification);
  if (!item.isPublic) return undefined;
  let def = object(item.value, path);
  // `{"ExpressionBody": {inputTypes, outputType, body}}` and similar body tags wrap the signature.
  const tagged = tagOf(def);
  if (tagged && !('inputTypes' in def) && !('inputs' in def) && isObject(tagged.content)) def = tagged.content;
  const name = v4Name(rawName, path);
  const isDefinition = 'inputTypes' in def || 'outputType' in def;
  const declared = inputs((isDefinition ? def.inputTypes : def.inputs) ?? [], `${path}.${isDefinition ? 'inputTypes' : 'inputs'}`);
  const output = v4Type(isDefinition ? def.outputType : def.output, `${path}.${isDefinition ? 'outputType' : 'output'}`);
  const doc = item.doc ?? docOf(def);
  return { source: canonicalFqName(packageName, module, name), name, ...normalizeSignature(declared, output), ...(doc ? { doc } : {}) };
}

function moduleOf(packageName: string, module: string[], def: JsonObject, path: string, specification: boolean): ProjectionModule {
  const types: TypeDeclaration[] = [];
  for (const [k, v, p] of entries(def.types, `${path}.types`)) {
    const declaration = typeDeclaration(k, v, packageName, module, p, specification);
    if (declaration) types.push(declaration);
  }
  const values: ValueSpecification[] = [];
  for (const [k, v, p] of entries(def.values, `${path}.values`)) {
    const value = valueSpecification(k, v, packageName, module, p, specification);
    if (value) values.push(value);
  }
  sortByKey(types, 'source');
  sortByKey(values, 'source');
  const doc = docOf(def);
  return { path: module, types, values, ...(doc ? { doc } : {}) };
}

function modules(value: Json, packageName: string, path: string, specification: boolean): ProjectionModule[] {
  const out: ProjectionModule[] = [];
  for (const [k, v, p] of entries(value, path)) {
    const module = v4ModulePath(k, p);
    const item = access(v, p, specification);
    if (item.isPublic) out.push(moduleOf(packageName, module, object(item.value, p), p, specification));
  }
  return out.sort((a, b) => compareStringArrays(a.path, b.path));
}

function dependencies(value: Json, path: string): ProjectionDependency[] {
  return entries(value, path)
    .map(([k, v, p]): ProjectionDependency => {
      const packageName = v4PackagePath(k, p);
      return { packageName, modules: modules(object(v, p).modules, packageName, `${p}.modules`, true) };
    })
    .sort((a, b) => compareStrings(a.packageName, b.packageName));
}

/**
 * Read a v4 document (whose formatVersion was already checked) into its public surface.
 * @throws {IrReadError} `invalid_ir` naming the JSON path that could not be read.
 */
export function readIrV4(root: JsonObject): ProjectionPackage {
  const distribution = root.distribution;
  let library: { packageName: Json; dependencies: Json; def: Json; path: string };
  if (Array.isArray(distribution)) {
    if (distribution[0] !== 'Library') fail('distribution[0]', '"Library" (only Library distributions have a package to project)');
    library = { packageName: distribution[1], dependencies: distribution[2], def: distribution[3], path: 'distribution' };
  } else if (isObject(distribution) && isObject(distribution.Library)) {
    const lib = distribution.Library;
    library = { packageName: lib.packageName, dependencies: lib.dependencies, def: lib.def ?? lib.definition, path: 'distribution.Library' };
  } else {
    return fail('distribution', 'a Library distribution ({"Library": {packageName, dependencies, def}})');
  }
  const packageName = v4PackagePath(library.packageName, `${library.path}.packageName`);
  const def = object(library.def, `${library.path}.def`);
  return {
    packageName,
    dependencies: dependencies(library.dependencies, `${library.path}.dependencies`),
    modules: modules(def.modules, packageName, `${library.path}.def.modules`, false),
  };
}

/**
 * The syntax of Morphir IR v4 (draft) below the distribution: canonical name strings
 * (`product-(i-d)`), paths, FQNames (`morphir/sdk:string#string`), and type expressions in all
 * three spellings found in real v4 documents — compact strings and arrays
 * (`["morphir/sdk:dict#dict", "k", "v"]`), object wrappers (`{"Reference": {"fqname", "args"}}`)
 * and classic tagged arrays. Everything is read into the same canonical model as v3.
 */
import { AVRO_CODES } from './diagnostics.ts';
import { MEMO_ENTRIES } from './memo.ts';
import { IrReadError } from './ir-version.ts';
import type { NamedType, TypeExpr } from './model.ts';
import { sortByKey } from './model.ts';
import { canonicalFqName, canonicalName } from './naming.ts';

/** Any JSON value. */
export type Json = unknown;

/** A JSON object. */
export type JsonObject = Record<string, Json>;

/** Whether `value` is a plain JSON object. */
export const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Throw `invalid_ir` naming the JSON path and what was expected there. */
export function fail(path: string, expected: string): never {
  throw new IrReadError(AVRO_CODES.invalidIr, `invalid Morphir IR v4 at ${path}: expected ${expected}`);
}

/** An object or `invalid_ir`. */
export function object(value: Json, path: string): JsonObject {
  return isObject(value) ? value : fail(path, 'an object');
}

const isUpper = (c: string): boolean => c >= 'A' && c <= 'Z';

/** Whether `key` is a tag (`Record`, `Public`, `TypeAliasDefinition`): v4 tags are UpperCamel, names never are. */
export const isTag = (key: string): boolean => key.length > 0 && isUpper(key.charAt(0));

/**
 * The one tag of a tagged object (`{"Reference": {...}}`, or `{"doc": …, "TypeAliasDefinition": {...}}`
 * with flattened siblings), or undefined when the object carries no tag.
 */
export function tagOf(value: Json): { tag: string; content: Json } | undefined {
  if (!isObject(value)) return undefined;
  const tags = Object.keys(value).filter(isTag);
  return tags.length === 1 ? { tag: tags[0], content: value[tags[0]] } : undefined;
}

/** Words of one `-`-separated token: `id` → [id]; `ID` → [i, d]; `APIResponse` → [a, p, i, response]. */
function tokenWords(token: string): string[] {
  if (token === token.toLowerCase()) return [token];
  const words: string[] = [];
  let current = '';
  for (let i = 0; i < token.length; i++) {
    const c = token.charAt(i);
    const previous = token.charAt(i - 1);
    const next = token.charAt(i + 1);
    // A capital after a lower-case letter or digit starts a word, and so does the last capital
    // of an initialism when a lower-case letter follows (`APIResponse` → `API`, `Response`).
    const startsWord = isUpper(c) && current !== '' && (!isUpper(previous) || (next !== '' && !isUpper(next) && next === next.toLowerCase() && next !== next.toUpperCase()));
    if (startsWord) {
      words.push(current);
      current = '';
    }
    current += c;
  }
  if (current !== '') words.push(current);
  return words.flatMap((w) => (w.length > 1 && w === w.toUpperCase() ? w.toLowerCase().split('') : [w.toLowerCase()]));
}

/**
 * Canonical names and FQNames of the strings that spell them: a model repeats the same names
 * (fields, SDK references) throughout, and splitting one into words is costly in QuickJS. Only
 * strings that read successfully are remembered, so failures still name their path.
 */
const knownNames = new Map<string, string>();
const knownFqNames = new Map<string, string>();

function remember(known: Map<string, string>, spelling: string, canonical: string): string {
  // Bounded, so one long-lived guest instance does not keep every name it ever saw.
  if (known.size >= MEMO_ENTRIES) known.clear();
  known.set(spelling, canonical);
  return canonical;
}

/**
 * Canonical name of a v4 name: a string `value-in-(u-s-d)` (parentheses group an initialism) or
 * a classic array of words. Both give the v3 canonical spelling (`value-in-USD`).
 */
export function v4Name(value: Json, path: string): string {
  if (Array.isArray(value)) {
    return canonicalName(value.map((w, i) => (typeof w === 'string' ? w : fail(`${path}[${i}]`, 'a string word'))));
  }
  if (typeof value !== 'string') return fail(path, 'a name (a string like "as-of" or an array of words)');
  const known = knownNames.get(value);
  if (known !== undefined) return known;
  if (value.trim() === '') return fail(path, 'a name (a string like "as-of" or an array of words)');
  const words = value.replace(/[()]/g, '').split('-').filter((w) => w !== '').flatMap(tokenWords);
  if (words.length === 0) return fail(path, 'a name with at least one word');
  return remember(knownNames, value, canonicalName(words));
}


// v4 examples spell the SDK package `morphir/sdk`; IR v3 and the canonical form spell it
// `morphir/s-d-k`, which canonicalizes to `morphir/SDK`. Both mean the same package.
const SDK_LOWER = 'morphir/sdk';

/** Canonical package path of `morphir/sdk`, `acme/customer` or a classic array of names. */
export function v4PackagePath(value: Json, path: string): string {
  let segments: string[];
  if (typeof value === 'string') segments = value.split('/').map((s, i) => v4Name(s, `${path}/${i}`));
  else if (Array.isArray(value)) segments = value.map((s, i) => v4Name(s, `${path}[${i}]`));
  else return fail(path, 'a package path (a string like "acme/customer")');
  const canonical = segments.join('/');
  return canonical.toLowerCase() === SDK_LOWER ? 'morphir/SDK' : canonical;
}

/** Canonical module path segments of `u-s/data-tables` or a classic array of names. */
export function v4ModulePath(value: Json, path: string): string[] {
  if (typeof value === 'string') return value.split('/').map((s, i) => v4Name(s, `${path}/${i}`));
  if (Array.isArray(value)) return value.map((s, i) => v4Name(s, `${path}[${i}]`));
  return fail(path, 'a module path (a string like "orders/api")');
}

/** Whether a string is an FQName (`package:module#local`) rather than a type variable. */
export const isFqNameString = (value: string): boolean => value.includes(':') && value.includes('#');

/** Canonical FQName of `pkg:mod#local` or a classic `[package, module, local]` triple. */
export function v4FqName(value: Json, path: string): string {
  if (typeof value === 'string') {
    const known = knownFqNames.get(value);
    if (known !== undefined) return known;
    const colon = value.indexOf(':');
    const hash = value.lastIndexOf('#');
    if (colon <= 0 || hash < colon) return fail(path, 'an FQName "package:module#local"');
    const canonical = canonicalFqName(
      v4PackagePath(value.slice(0, colon), path),
      v4ModulePath(value.slice(colon + 1, hash), path),
      v4Name(value.slice(hash + 1), path),
    );
    return remember(knownFqNames, value, canonical);
  }
  if (Array.isArray(value) && value.length === 3) {
    return canonicalFqName(v4PackagePath(value[0], `${path}[0]`), v4ModulePath(value[1], `${path}[1]`), v4Name(value[2], `${path}[2]`));
  }
  return fail(path, 'an FQName "package:module#local"');
}

/** Entries of a v4 collection: an object keyed by name, or an array of `[key, value]` pairs. */
export function entries(value: Json, path: string): [Json, Json, string][] {
  if (value === undefined || value === null) return [];
  if (isObject(value)) return Object.keys(value).map((k) => [k, value[k], `${path}.${k}`]);
  if (Array.isArray(value)) {
    return value.map((entry, i) => {
      if (!Array.isArray(entry) || entry.length < 2) return fail(`${path}[${i}]`, 'a [key, value] pair');
      return [entry[0], entry[1], `${path}[${i}][1]`];
    });
  }
  return fail(path, 'an object keyed by name or an array of [name, value] pairs');
}

/** Record fields: `{name: type}`, `{"fields": {name: type}}`, or classic `[{name, tpe}]`/`[[name, type]]`. */
export function v4Fields(value: Json, path: string): NamedType[] {
  let fields = value;
  // `{"fields": {...}}` wraps the map unless `fields` is itself a field whose value is a type.
  if (isObject(value) && Object.keys(value).length === 1 && isObject(value.fields) && tagOf(value.fields) === undefined) fields = value.fields;
  if (Array.isArray(fields)) {
    return fields.map((f, i) => {
      const p = `${path}[${i}]`;
      if (isObject(f)) return { name: v4Name(f.name, `${p}.name`), tpe: v4Type(f.tpe ?? f.type, `${p}.tpe`) };
      if (Array.isArray(f) && f.length === 2) return { name: v4Name(f[0], `${p}[0]`), tpe: v4Type(f[1], `${p}[1]`) };
      return fail(p, 'a field');
    });
  }
  return entries(fields, path).map(([k, v, p]) => ({ name: v4Name(k, p), tpe: v4Type(v, p) }));
}

/** Skip an attributes object (`{}`, `{source, …}`) in array syntax: it has no tag. */
const isAttributes = (value: Json): boolean => isObject(value) && tagOf(value) === undefined;

function arrayType(node: Json[], path: string): TypeExpr {
  const head = node[0];
  if (typeof head !== 'string') return fail(`${path}[0]`, 'a type tag or an FQName');
  const rest = node.slice(1);
  const args = rest.length > 0 && isAttributes(rest[0]) && head !== 'Record' ? rest.slice(1) : rest;
  const at = (i: number): string => `${path}[${node.length - args.length + i}]`;
  if (isFqNameString(head)) return { kind: 'reference', source: v4FqName(head, `${path}[0]`), args: args.map((a, i) => v4Type(a, at(i))) };
  switch (head) {
    case 'Variable':
      return { kind: 'variable', name: v4Name(args[0], at(0)) };
    case 'Reference': {
      const refArgs = args[1] === undefined ? [] : Array.isArray(args[1]) ? args[1] : fail(at(1), 'an array of type arguments');
      return { kind: 'reference', source: v4FqName(args[0], at(0)), args: refArgs.map((a, i) => v4Type(a, `${at(1)}[${i}]`)) };
    }
    case 'Tuple': {
      // Classic `["Tuple", attrs, [elements]]` or compact `["Tuple", a, b, …]`.
      const elements = args.length === 1 && Array.isArray(args[0]) && (args[0].length === 0 || typeof args[0][0] !== 'string') ? args[0] : args;
      return { kind: 'tuple', elements: elements.map((e, i) => v4Type(e, `${path}.elements[${i}]`)) };
    }
    case 'Record':
      return { kind: 'record', fields: sortFields(v4Fields(isAttributes(rest[0]) && rest.length > 1 ? rest[1] : rest[0], at(0))) };
    case 'ExtensibleRecord':
      return { kind: 'extensible', variable: v4Name(args[0], at(0)), fields: sortFields(v4Fields(args[1], at(1))) };
    case 'Function':
      return { kind: 'function', input: v4Type(args[0], at(0)), output: v4Type(args[1], at(1)) };
    case 'Unit':
      return { kind: 'unit' };
    default:
      return fail(`${path}[0]`, 'a type tag (Tuple, Function, Unit, …) or an FQName');
  }
}

const sortFields = (fields: NamedType[]): NamedType[] => sortByKey(fields, 'name');

function wrappedType(tag: string, content: Json, path: string): TypeExpr {
  const c = (key: string): Json => (isObject(content) ? content[key] : undefined);
  const p = `${path}.${tag}`;
  switch (tag) {
    case 'Variable':
      return { kind: 'variable', name: v4Name(typeof content === 'string' ? content : c('name'), `${p}.name`) };
    case 'Reference': {
      const args = c('args') ?? [];
      if (!Array.isArray(args)) return fail(`${p}.args`, 'an array of type arguments');
      return { kind: 'reference', source: v4FqName(typeof content === 'string' ? content : c('fqname'), `${p}.fqname`), args: args.map((a, i) => v4Type(a, `${p}.args[${i}]`)) };
    }
    case 'Tuple': {
      const elements = Array.isArray(content) ? content : c('elements');
      if (!Array.isArray(elements)) return fail(`${p}.elements`, 'an array of element types');
      return { kind: 'tuple', elements: elements.map((e, i) => v4Type(e, `${p}.elements[${i}]`)) };
    }
    case 'Record':
      return { kind: 'record', fields: sortFields(v4Fields(content, p)) };
    case 'ExtensibleRecord':
      return { kind: 'extensible', variable: v4Name(c('variable'), `${p}.variable`), fields: sortFields(v4Fields(c('fields'), `${p}.fields`)) };
    case 'Function':
      return { kind: 'function', input: v4Type(c('arg') ?? c('argumentType'), `${p}.arg`), output: v4Type(c('result') ?? c('returnType'), `${p}.result`) };
    case 'Unit':
      return { kind: 'unit' };
    default:
      return fail(path, 'a type (Variable, Reference, Tuple, Record, ExtensibleRecord, Function or Unit)');
  }
}

/**
 * Read one v4 type expression: `"a"` (variable), `"morphir/sdk:string#string"` (reference),
 * `["morphir/sdk:list#list", "a"]`, `["Tuple", a, b]`, `{"Record": {...}}`, `{"Reference": {...}}`,
 * or a classic tagged array `["Reference", {}, fqname, args]`.
 */
export function v4Type(value: Json, path: string): TypeExpr {
  if (typeof value === 'string') {
    if (value === 'Unit') return { kind: 'unit' };
    return isFqNameString(value) ? { kind: 'reference', source: v4FqName(value, path), args: [] } : { kind: 'variable', name: v4Name(value, path) };
  }
  if (Array.isArray(value)) return value.length === 0 ? fail(path, 'a type expression') : arrayType(value, path);
  const tagged = tagOf(value);
  if (tagged) return wrappedType(tagged.tag, tagged.content, path);
  return fail(path, 'a type expression');
}

/** Canonical FQName of a definition inside `packageName`'s module. */
export const definitionSource = canonicalFqName;

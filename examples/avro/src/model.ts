/**
 * The normalized, body-free Morphir model the Avro projection reads, and the renderer-neutral
 * Avro model it produces. All names here are canonical Morphir strings (`as-of`,
 * `acme/customer:customer#find-customer`).
 */

/** A Morphir type expression with canonical names. */
export type TypeExpr =
  | { readonly kind: 'variable'; readonly name: string }
  | { readonly kind: 'reference'; readonly source: string; readonly args: readonly TypeExpr[] }
  | { readonly kind: 'tuple'; readonly elements: readonly TypeExpr[] }
  | { readonly kind: 'record'; readonly fields: readonly NamedType[] }
  | { readonly kind: 'extensible'; readonly variable: string; readonly fields: readonly NamedType[] }
  | { readonly kind: 'function'; readonly input: TypeExpr; readonly output: TypeExpr }
  | { readonly kind: 'unit' };

/** A named type: a record field, constructor argument or value input. */
export interface NamedType {
  readonly name: string;
  readonly tpe: TypeExpr;
}

/** A custom type constructor. */
export interface Constructor {
  readonly source: string;
  readonly name: string;
  readonly args: readonly NamedType[];
}

/** A public type declaration; `opaque` covers private-constructor custom types. */
export type TypeDeclaration =
  | { readonly kind: 'alias'; readonly source: string; readonly name: string; readonly params: readonly string[]; readonly value: TypeExpr; readonly doc?: string }
  | { readonly kind: 'custom'; readonly source: string; readonly name: string; readonly params: readonly string[]; readonly constructors: readonly Constructor[]; readonly doc?: string }
  | { readonly kind: 'opaque'; readonly source: string; readonly name: string; readonly params: readonly string[]; readonly doc?: string };

/** A public value signature (bodies are never read). */
export interface ValueSpecification {
  readonly source: string;
  readonly name: string;
  readonly inputs: readonly NamedType[];
  readonly output: TypeExpr;
  readonly valueKind: 'constant' | 'function';
  readonly doc?: string;
}

/** A module with its public types and values, both sorted by source FQName. */
export interface ProjectionModule {
  readonly path: readonly string[];
  readonly types: readonly TypeDeclaration[];
  readonly values: readonly ValueSpecification[];
  readonly doc?: string;
}

/** A dependency package's specification modules. */
export interface ProjectionDependency {
  readonly packageName: string;
  readonly modules: readonly ProjectionModule[];
}

/** The normalized public surface of one Library distribution. */
export interface ProjectionPackage {
  readonly packageName: string;
  readonly modules: readonly ProjectionModule[];
  readonly dependencies: readonly ProjectionDependency[];
}

/** A JSON value as carried in Avro properties. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** Custom Avro properties, rendered with sorted keys. */
export type Properties = Readonly<Record<string, JsonValue>>;

/**
 * The empty property set, shared by every field and type without properties (most of them):
 * projected types are never mutated, and the renderers skip it without enumerating it.
 */
export const NO_PROPERTIES: Properties = Object.freeze({});

/** An Avro full name split into namespace and local name. */
export interface FullName {
  readonly namespace: string;
  readonly name: string;
}

/** The Avro primitive type names. */
export type AvroPrimitive = 'null' | 'boolean' | 'int' | 'long' | 'float' | 'double' | 'bytes' | 'string';

/** A renderer-neutral Avro type expression. */
export type AvroType =
  | { readonly kind: 'primitive'; readonly name: AvroPrimitive }
  | { readonly kind: 'array'; readonly items: AvroType; readonly props: Properties }
  | { readonly kind: 'map'; readonly values: AvroType; readonly props: Properties }
  | { readonly kind: 'union'; readonly branches: readonly AvroType[] }
  | { readonly kind: 'named'; readonly fullName: FullName }
  | { readonly kind: 'logical'; readonly physical: AvroType; readonly logicalType: string; readonly props: Properties }
  | { readonly kind: 'annotated'; readonly physical: AvroType; readonly props: Properties };

/** A record field. */
export interface AvroField {
  readonly name: string;
  readonly type: AvroType;
  readonly props: Properties;
}

/** A named Avro declaration. */
export type NamedSchema =
  | { readonly kind: 'record'; readonly fullName: FullName; readonly fields: readonly AvroField[]; readonly doc?: string; readonly props: Properties }
  | { readonly kind: 'enum'; readonly fullName: FullName; readonly symbols: readonly string[]; readonly doc?: string; readonly props: Properties };

/** A public Morphir type projected as an artifact root. */
export interface AvroRoot {
  readonly source: string;
  readonly fullName: FullName;
  readonly type: AvroType;
  readonly doc?: string;
  /** Named declarations the root needs, transitively, sorted. Filled by `finishPackage`. */
  references: FullName[];
}

/** A protocol message projected from a public value. */
export interface AvroMessage {
  readonly name: string;
  readonly request: readonly AvroField[];
  readonly response: AvroType;
  readonly props: Properties;
}

/** A protocol projected from one module. */
export interface AvroProtocol {
  readonly fullName: FullName;
  readonly messages: readonly AvroMessage[];
  readonly props: Properties;
  readonly typeRoots: readonly AvroType[];
  /** Named declarations the protocol needs, transitively, sorted. Filled by `finishPackage`. */
  references: FullName[];
}

/** A complete, checked Avro projection ready to render. */
export interface AvroPackage {
  readonly roots: readonly AvroRoot[];
  readonly schemas: ReadonlyMap<string, NamedSchema>;
  readonly linkedSchemas: ReadonlyMap<string, NamedSchema>;
  readonly protocols: readonly AvroProtocol[];
  /** Namespaces nested under a named type other than its full name, to that type's full name. */
  readonly nestedNamespaces: ReadonlyMap<string, string>;
}

const KEY = Symbol('fullNameKey');

/**
 * Dotted spelling of a full name, kept on the object (under a symbol: not a key of its JSON or
 * spread) once made: one FullName object is looked up by key again at every reference to it, and
 * in QuickJS each spelling was a new string to build and free.
 */
export function fullNameKey(name: FullName): string {
  const known = (name as { [KEY]?: string })[KEY];
  if (known !== undefined) return known;
  const key = name.namespace === '' ? name.name : `${name.namespace}.${name.name}`;
  (name as { [KEY]?: string })[KEY] = key;
  return key;
}

/** Order full names by namespace, then local name (the reference's struct ordering). */
export function compareFullNames(left: FullName, right: FullName): number {
  return compareStrings(left.namespace, right.namespace) || compareStrings(left.name, right.name);
}

/** Code-unit string comparison (equal to byte order for the ASCII names compared here). */
export function compareStrings(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}

/** Lists up to this long are sorted by insertion in {@link sortByKey}. */
const INSERTION_SORT_MAX = 32;

/**
 * Sort `items` in place by their string `key`, in code-unit order and stably: what
 * `items.sort((a, b) => compareStrings(a[key], b[key]))` does, but a short list (fields,
 * constructors, a module's types) is sorted by insertion, comparing inline: QuickJS's sort makes
 * a native-to-JS comparator call per pair, even for a list already in order.
 */
export function sortByKey<K extends string, T extends { readonly [P in K]: string }>(items: T[], key: K): T[] {
  if (items.length > INSERTION_SORT_MAX) return sortLong(items, key);
  for (let i = 1; i < items.length; i++) {
    const item = items[i];
    const value = item[key];
    let j = i - 1;
    for (; j >= 0 && items[j][key] > value; j--) items[j + 1] = items[j];
    items[j + 1] = item;
  }
  return items;
}

/**
 * {@link sortByKey} of a long list (a module's types): when its keys are distinct, the keys alone
 * are sorted by the engine's own comparison (no comparator: code-unit order, as compareStrings)
 * and the items put back by key, instead of a native-to-JS comparator call per pair; equal keys
 * keep the stable comparator sort.
 */
function sortLong<K extends string, T extends { readonly [P in K]: string }>(items: T[], key: K): T[] {
  const byKey = new Map<string, T>();
  const keys: string[] = [];
  for (let i = 0; i < items.length; i++) {
    const k = items[i][key];
    if (byKey.has(k)) return items.sort((a, b) => compareStrings(a[key], b[key]));
    byKey.set(k, items[i]);
    keys[i] = k;
  }
  keys.sort();
  for (let i = 0; i < keys.length; i++) items[i] = byKey.get(keys[i]) as T;
  return items;
}

/** Lexicographic comparison of string arrays (module paths). */
export function compareStringArrays(left: readonly string[], right: readonly string[]): number {
  const length = Math.min(left.length, right.length);
  for (let i = 0; i < length; i++) {
    const order = compareStrings(left[i], right[i]);
    if (order !== 0) return order;
  }
  return left.length - right.length;
}

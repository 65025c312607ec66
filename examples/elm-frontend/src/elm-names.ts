/**
 * Morphir's names, as morphir-elm derives them from Elm identifiers (`Morphir.IR.Name.fromString`,
 * `Morphir.IR.Path.fromString`): a name is a list of lower-case words, a path a list of names.
 * The frontend needs them to decide which modules belong to a package and to find, in the source,
 * what an error of the compiler names.
 */

/** A Morphir name: lower-case words, e.g. `["order","id"]` for `orderId` or `OrderId`. */
export type MorphirName = readonly string[];
/** A Morphir path: names, e.g. `[["acme"],["customer"]]` for `Acme.Customer`. */
export type MorphirPath = readonly MorphirName[];

const WORD = /[a-zA-Z][a-z]*|[0-9]+/g;
// Morphir.IR.Path.fromString splits on any run of characters that are neither word characters
// nor white space.
const SEPARATOR = /[^\w\s]+/;

/** `Morphir.IR.Name.fromString`: `"OrderID"` → `["order","i","d"]`. */
export function nameFromString(text: string): MorphirName {
  return (text.match(WORD) ?? []).map((w) => w.toLowerCase());
}

/** `Morphir.IR.Path.fromString`: `"Acme.Customer"` or `"acme/customer"` → `[["acme"],["customer"]]`. */
export function pathFromString(text: string): MorphirPath {
  return text.split(SEPARATOR).map(nameFromString);
}

/** `Morphir.IR.Name.toTitleCase`: `["order","id"]` → `"OrderId"`. */
export function toTitleCase(name: MorphirName): string {
  return name.map((w) => (w.length > 0 ? w[0].toUpperCase() + w.slice(1) : w)).join('');
}

/** `Morphir.IR.Name.toCamelCase`: `["order","id"]` → `"orderId"`. */
export function toCamelCase(name: MorphirName): string {
  const title = toTitleCase(name);
  return name.length > 0 && name[0].length > 0 ? name[0] + title.slice(name[0].length) : title;
}

/** An Elm module name for a path: `[["acme"],["customer"]]` → `"Acme.Customer"`. */
export function pathToElm(path: MorphirPath): string {
  return path.map(toTitleCase).join('.');
}

/** A stable key for a path (for maps and sets). */
export function pathKey(path: MorphirPath): string {
  return path.map((n) => n.join(' ')).join('.');
}

/** True when `prefix` is a prefix of `path` (Morphir.IR.Path.isPrefixOf with its arguments named). */
export function isPathPrefix(prefix: MorphirPath, path: MorphirPath): boolean {
  return prefix.length <= path.length && prefix.every((name, i) => name.length === path[i].length && name.every((w, j) => w === path[i][j]));
}

/** Reads a path as the compiler's JSON writes it (`[["acme"],["customer"]]`), or undefined. */
export function pathFromJson(value: unknown): MorphirPath | undefined {
  if (!Array.isArray(value)) return undefined;
  const out: MorphirName[] = [];
  for (const name of value) {
    if (!Array.isArray(name) || !name.every((w) => typeof w === 'string')) return undefined;
    out.push(name as string[]);
  }
  return out;
}

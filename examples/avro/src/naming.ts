/**
 * Canonical Morphir names and the Avro identifiers derived from them. Everything here is plain
 * string code (no regex lookbehind, no Intl) so it runs the same in Node and in QuickJS.
 */
import { MEMO_ENTRIES, memoized } from './memo.ts';
import type { FullName } from './model.ts';

/**
 * Canonical spelling of legacy (IR v1–v3) name words: words joined by `-`, and a run of two or
 * more single-letter words collapsed into one upper-case initialism.
 * @example canonicalName(['a', 'p', 'i', 'response']) // 'API-response'
 */
export function canonicalName(words: readonly string[]): string {
  const segments: string[] = [];
  let run = '';
  let runLength = 0;
  const flush = (): void => {
    // A run of one stays a word, so a single-letter type variable is `a`, not `A`.
    if (runLength === 1) segments.push(run);
    else if (runLength > 1) segments.push(run.toUpperCase());
    run = '';
    runLength = 0;
  };
  for (const raw of words) {
    const word = raw.toLowerCase();
    if (word.length === 1 && word >= 'a' && word <= 'z') {
      run += word;
      runLength++;
    } else {
      flush();
      segments.push(word);
    }
  }
  flush();
  return segments.join('-');
}

/** Canonical package or module path: canonical names joined by `/`. */
export function canonicalPath(path: readonly (readonly string[])[]): string {
  return path.map(canonicalName).join('/');
}

/** Canonical FQName string `package:module#local`. */
export function canonicalFqName(packageName: string, modulePath: readonly string[], local: string): string {
  return fqNamePrefix(packageName, modulePath) + local;
}

/** What every canonical FQName in a module starts with: `package:module#`. */
export function fqNamePrefix(packageName: string, modulePath: readonly string[]): string {
  return `${packageName}:${modulePath.join('/')}#`;
}

const isAsciiUpper = (c: string): boolean => c >= 'A' && c <= 'Z';
const isAsciiLower = (c: string): boolean => c >= 'a' && c <= 'z';
const isAsciiDigit = (c: string): boolean => c >= '0' && c <= '9';
const isAsciiAlnum = (c: string): boolean => isAsciiUpper(c) || isAsciiLower(c) || isAsciiDigit(c);

function identifierWords(source: string): string[] {
  const words: string[] = [];
  let current = '';
  let previousLowerOrDigit = false;
  for (const c of source) {
    if (!isAsciiAlnum(c)) {
      if (current !== '') words.push(current);
      current = '';
      previousLowerOrDigit = false;
      continue;
    }
    if (isAsciiUpper(c) && previousLowerOrDigit && current !== '') {
      words.push(current);
      current = '';
    }
    previousLowerOrDigit = isAsciiLower(c) || isAsciiDigit(c);
    current += c.toLowerCase();
  }
  if (current !== '') words.push(current);
  return words;
}

/**
 * UpperCamelCase of a canonical name; any non-alphanumeric run is a word boundary and an
 * initialism is title-cased (`API-response` → `ApiResponse`). Memoized: a model spells the same
 * few hundred names thousands of times.
 */
export const upperCamel: (source: string) => string = memoized(spellUpperCamel);

function spellUpperCamel(source: string): string {
  let out = identifierWords(source)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');
  if (out === '') out = '_';
  if (isAsciiDigit(out.charAt(0))) out = `_${out}`;
  return out;
}

/** lowerCamelCase of a canonical name (`as-of` → `asOf`); memoized, as it runs for every record field. */
export const lowerCamel: (source: string) => string = memoized((source) => {
  const upper = upperCamel(source);
  return upper.charAt(0).toLowerCase() + upper.slice(1);
});

const namespaceCache = new Map<string, string>();

/** Avro namespace of a module: lowerCamel of each package and module segment, joined by `.`. */
export function avroNamespace(packageName: string, modulePath: readonly string[]): string {
  // Length-prefixed parts: no two different (package, module path) pairs share a key.
  let key = `${packageName.length}:${packageName}`;
  for (const segment of modulePath) key += `${segment.length}:${segment}`;
  let namespace = namespaceCache.get(key);
  if (namespace === undefined) {
    if (namespaceCache.size >= MEMO_ENTRIES) namespaceCache.clear();
    namespace = spellNamespace(packageName, modulePath);
    namespaceCache.set(key, namespace);
  }
  return namespace;
}

function spellNamespace(packageName: string, modulePath: readonly string[]): string {
  return packageName
    .split('/')
    .concat(modulePath)
    .filter((part) => part !== '')
    .map(lowerCamel)
    .join('.');
}

/** The Avro namespace and name the reference derives from a canonical FQName string. */
export function fullNameFromSource(source: string): FullName | undefined {
  const hash = source.lastIndexOf('#');
  if (hash < 0) return undefined;
  const qualified = source.slice(0, hash);
  const colon = qualified.indexOf(':');
  if (colon < 0) return undefined;
  return {
    namespace: avroNamespace(qualified.slice(0, colon), qualified.slice(colon + 1).split('/')),
    name: upperCamel(source.slice(hash + 1)),
  };
}

/** Whether `identifier` is a valid Avro name component (`[A-Za-z_][A-Za-z0-9_]*`); memoized, as every generated name is checked, most of them many times. */
export const isValidIdentifier: (identifier: string) => boolean = memoized(spellsIdentifier);

function spellsIdentifier(identifier: string): boolean {
  if (identifier === '') return false;
  // Char codes rather than a string iterator: this runs for every name, and in QuickJS the
  // iterator allocated a string per character.
  for (let i = 0; i < identifier.length; i++) {
    const c = identifier.charCodeAt(i);
    const letter = c === 95 || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
    if (!letter && !(i > 0 && c >= 48 && c <= 57)) return false;
  }
  return true;
}

const isValidNamespace = memoized((namespace) => namespace.split('.').every(isValidIdentifier));

/** Whether a namespace/name pair forms a valid Avro full name. */
export function isValidFullName(name: FullName): boolean {
  if (!isValidIdentifier(name.name)) return false;
  return name.namespace === '' || isValidNamespace(name.namespace);
}

const IDL_KEYWORDS = new Set([
  'array', 'big_decimal', 'boolean', 'bytes', 'date', 'decimal', 'double', 'enum', 'error', 'false',
  'fixed', 'float', 'idl', 'import', 'int', 'local_timestamp_ms', 'long', 'map', 'namespace', 'null',
  'oneway', 'protocol', 'record', 'schema', 'string', 'throws', 'time_ms', 'timestamp_ms', 'true',
  'union', 'uuid', 'void',
]);

/** Wrap an Avro IDL keyword in backticks; JSON output keeps identifiers unchanged. */
export function escapeIdlIdentifier(identifier: string): string {
  return IDL_KEYWORDS.has(identifier) ? `\`${identifier}\`` : identifier;
}

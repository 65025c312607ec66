/**
 * The IR reader's memory of canonical spellings (ir-reader.ts), by the words of the JSON they
 * come from: a model repeats the same names and FQNames (SDK references, common fields)
 * throughout, and a hit costs one map look-up per word, with no key string and no intermediate
 * array. Bounded, so one long-lived guest does not keep every name it saw.
 */
import { MEMO_ENTRIES } from './memo.ts';
import type { TypeExpr } from './model.ts';

type Json = unknown;
const isArray = Array.isArray as (value: unknown) => value is Json[];

/**
 * Maps a word to the node after it; `nameEnd` closes a name of a path, `pathEnd` the package and
 * module paths of an FQName, whose node may also keep the one reference to it without arguments.
 */
type WordNode = Map<string, WordNode> & { canonical?: string; nameEnd?: WordNode; pathEnd?: WordNode; reference?: TypeExpr; firstWord?: string; first?: WordNode };

const wordNode = (): WordNode => new Map() as WordNode;

/**
 * The node after the words of `value`, or undefined when `value` is not an array of strings or
 * (unless `grow` adds the missing nodes) was not seen before.
 */
function afterName(node: WordNode, value: Json, grow: boolean): WordNode | undefined {
  if (!isArray(value)) return undefined;
  for (let i = 0; i < value.length; i++) {
    // A word that is not a string is never a key, so only a new node needs the check.
    const word = value[i];
    let next = node.get(word as string);
    if (next === undefined) {
      if (!grow || typeof word !== 'string') return undefined;
      next = wordNode();
      node.set(word, next);
    }
    node = next;
  }
  return node;
}

/** {@link afterName} for an FQName `[package, module, local]`; one loop, as it runs for every reference. */
function afterFqName(node: WordNode, value: Json, grow: boolean): WordNode | undefined {
  if (!isArray(value) || value.length !== 3) return undefined;
  for (let part = 0; part < 2; part++) {
    const path = value[part];
    if (!isArray(path)) return undefined;
    for (let i = 0; i < path.length; i++) {
      const words = path[i];
      if (!isArray(words)) return undefined;
      for (let j = 0; j < words.length; j++) {
        const word = words[j];
        // A package or module path is a chain of nodes with one child each: its word is compared
        // first (the parse shares equal strings, so mostly one pointer compare), the map only
        // looked up when it differs.
        let next = word === node.firstWord ? node.first : node.get(word as string);
        if (next === undefined) {
          if (!grow || typeof word !== 'string') return undefined;
          next = wordNode();
          node.set(word, next);
          if (node.first === undefined) {
            node.firstWord = word;
            node.first = next;
          }
        }
        node = next;
      }
      if (node.nameEnd === undefined) {
        if (!grow) return undefined;
        node.nameEnd = wordNode();
      }
      node = node.nameEnd;
    }
    if (node.pathEnd === undefined) {
      if (!grow) return undefined;
      node.pathEnd = wordNode();
    }
    node = node.pathEnd;
  }
  return afterName(node, value[2], grow);
}

let knownNames = wordNode();
let knownFqNames = wordNode();
let knownCount = 0;

/** Count one more remembered spelling; bounded, so one long-lived guest does not keep every name it saw. */
function makeRoom(): void {
  if (knownCount >= MEMO_ENTRIES) {
    knownNames = wordNode();
    knownFqNames = wordNode();
    knownCount = 0;
  }
  knownCount++;
}

/** The canonical spelling remembered for the name `value` (an array of words), if any. */
export function knownName(value: Json): string | undefined {
  return afterName(knownNames, value, false)?.canonical;
}

/** The canonical spelling remembered for the FQName `value`, if any. */
export function knownFqName(value: Json): string | undefined {
  return afterFqName(knownFqNames, value, false)?.canonical;
}

/** Remembers `canonical` as the spelling of the name `words`. */
export function rememberName(words: readonly string[], canonical: string): void {
  makeRoom();
  (afterName(knownNames, words, true) as WordNode).canonical = canonical;
}

/** Remembers `canonical` as the spelling of the FQName `parts` (not when a word is not a string: read leniently, not remembered). */
export function rememberFqName(parts: readonly Json[], canonical: string): void {
  makeRoom();
  const node = afterFqName(knownFqNames, parts, true);
  if (node !== undefined) node.canonical = canonical;
}

/** The reference without arguments remembered for the FQName `value`, if any. */
export function knownReference(value: Json): TypeExpr | undefined {
  return afterFqName(knownFqNames, value, false)?.reference;
}

/**
 * Remembers `reference` as the one reference without arguments to the FQName `parts`: most
 * references have none, and type expressions are never mutated, so every such reference to a
 * type can share one object instead of a new one per use.
 */
export function rememberReference(parts: readonly Json[], reference: TypeExpr): void {
  makeRoom();
  const node = afterFqName(knownFqNames, parts, true);
  if (node !== undefined) node.reference = reference;
}

/**
 * A named schema's JSON made once, with a hole where each named type it uses goes: defined inline
 * at its first use in a document, referenced by full name after that. Every use fills the holes
 * and copies only the objects and arrays on the way from the top to a hole; the rest of the tree
 * (most fields, their types, decorated primitives, properties) is shared by every use, in every
 * file. The self-contained layout writes each type's closure in every root's file: building that
 * tree object by object for each use was most of the render's work in QuickJS.
 */
import type { AvroType, FullName, JsonValue } from './model.ts';

type JsonContainer = JsonValue[] | { [key: string]: JsonValue };

/** A schema's tree, the named types in it in document order (holes), and the way to each. */
export interface SchemaTemplate {
  readonly tree: JsonValue;
  readonly holes: readonly FullName[];
  /** Per hole, the keys (array indexes as numbers) from the top of `tree` to it. */
  readonly paths: readonly (readonly (string | number)[])[];
}

/**
 * Whether each named type in `tpe` stands where its definition replaces its name as a whole:
 * not under a logical type or annotation over a composite type, whose object takes the keys of
 * a named type defined there (JsonTypeRenderer's decorateType), so its shape depends on the use.
 */
export function fillable(tpe: AvroType): boolean {
  switch (tpe.kind) {
    case 'array':
      return fillable(tpe.items);
    case 'map':
      return fillable(tpe.values);
    case 'union':
      for (let i = 0; i < tpe.branches.length; i++) if (!fillable(tpe.branches[i])) return false;
      return true;
    case 'logical':
    case 'annotated':
      return tpe.physical.kind === 'primitive';
    default:
      return true;
  }
}

/**
 * The ways to the named types in `tpe`, a record field's type, in the order the renderer meets
 * them, each from the record's top: its `fields` array, the field, the field's `type`, then
 * `items` of an array, `values` of a map, a union's branch index.
 */
export function holePaths(tpe: AvroType, path: (string | number)[], out: (string | number)[][]): void {
  switch (tpe.kind) {
    case 'named':
      out.push(path.slice());
      return;
    case 'array':
    case 'map': {
      path.push(tpe.kind === 'array' ? 'items' : 'values');
      holePaths(tpe.kind === 'array' ? tpe.items : tpe.values, path, out);
      path.pop();
      return;
    }
    case 'union':
      for (let i = 0; i < tpe.branches.length; i++) {
        path.push(i);
        holePaths(tpe.branches[i], path, out);
        path.pop();
      }
      return;
    default:
      return;
  }
}

const copy = (value: JsonContainer): JsonContainer => (Array.isArray(value) ? value.slice() : { ...value });

/**
 * The template's tree with `values[i]` in hole i: copies of what leads to a defined hole, the rest
 * shared. A hole whose value is a string (its full name: referenced, not defined here) is left as
 * the template holds it, so a schema whose named types are all defined already is its template.
 */
export function fillTemplate({ tree, paths }: SchemaTemplate, values: readonly JsonValue[]): JsonValue {
  let top: JsonContainer | undefined;
  for (let i = 0; i < paths.length; i++) {
    if (typeof values[i] === 'string') continue;
    top ??= copy(tree as JsonContainer);
    const path = paths[i];
    let shared = tree as JsonContainer;
    let own = top;
    for (let j = 0; j < path.length - 1; j++) {
      const key = path[j] as string;
      const sharedChild = (shared as Record<string, JsonValue>)[key] as JsonContainer;
      let ownChild = (own as Record<string, JsonValue>)[key] as JsonContainer;
      // Not copied yet by an earlier hole's way: copy it now.
      if (ownChild === sharedChild) (own as Record<string, JsonValue>)[key] = ownChild = copy(sharedChild);
      shared = sharedChild;
      own = ownChild;
    }
    (own as Record<string, JsonValue>)[path[path.length - 1] as string] = values[i];
  }
  return top ?? tree;
}

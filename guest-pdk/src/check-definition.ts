/**
 * The check `defineExtension` runs once on what the author passed: the definition schema, and a
 * refusal that names every member that is wrong and what it expects, on one line. One line,
 * because it is read where the throw lands: a `mep build` diagnostic for wasm (the throw happens
 * before the snapshot), the line Node prints above the stack when a process dies at start-up,
 * and the error of a test that imports the entry.
 */
import type * as z from 'zod';
import { LocalErrorCode, MepError } from '../../host/src/protocol/errors.ts';
import { DEFINITION_EXPECTATIONS, ExtensionDefinition } from './definition.ts';

/** One problem of a definition: the member (`backend.targets`, `frontend.languages[0].id`) and what is wrong. */
export interface DefinitionProblem {
  path: string;
  problem: string;
}

// Enough to act on in one line; `data.problems` has them all.
const SHOWN_PROBLEMS = 8;

const pathText = (path: readonly PropertyKey[]): string =>
  path.length === 0 ? 'the definition' : path.map((segment, i) => (typeof segment === 'number' ? `[${segment}]` : i === 0 ? String(segment) : `.${String(segment)}`)).join('');

/** `path` as {@link DEFINITION_EXPECTATIONS} keys it: list positions as `[]`. */
const patternOf = (path: readonly PropertyKey[]): string => path.map((segment, i) => (typeof segment === 'number' ? '[]' : i === 0 ? String(segment) : `.${String(segment)}`)).join('');

/** What the author wrote at `path`, undefined when nothing is there. */
function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let value = root;
  for (const segment of path) value = typeof value === 'object' && value !== null ? (value as Record<PropertyKey, unknown>)[segment] : undefined;
  return value;
}

/** How a value that is not what a member expects is named in a message. */
function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return value.length === 0 ? 'an empty list' : `a list of ${value.length}`;
  if (typeof value === 'string') return value === '' ? 'an empty string' : `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  if (typeof value === 'number' || typeof value === 'boolean') return `the ${typeof value} ${String(value)}`;
  if (typeof value === 'function') return 'a function';
  return `a ${typeof value}`;
}

/** The members the definition schema knows at `path` (an object's), found by walking zod's own description of it. */
function membersAt(path: readonly PropertyKey[]): string[] {
  type Def = { type: string; shape?: Record<string, { _zod: { def: Def } }>; element?: { _zod: { def: Def } }; innerType?: { _zod: { def: Def } } };
  const unwrap = (def: Def): Def => (def.type === 'optional' && def.innerType ? unwrap(def.innerType._zod.def) : def);
  let def = unwrap(ExtensionDefinition._zod.def as unknown as Def);
  for (const segment of path) {
    const next = typeof segment === 'number' ? def.element : def.shape?.[String(segment)];
    if (next === undefined) return [];
    def = unwrap(next._zod.def);
  }
  return def.type === 'object' ? Object.keys(def.shape ?? {}) : [];
}

/** Edit distance of two short names, case ignored. */
function distance(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  let row = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const next = [i];
    for (let j = 1; j <= y.length; j++) next[j] = Math.min((row[j] as number) + 1, (next[j - 1] as number) + 1, (row[j - 1] as number) + (x[i - 1] === y[j - 1] ? 0 : 1));
    row = next;
  }
  return row[y.length] as number;
}

/** The problem of an unknown member `key` of the object at `path`, with the known member it most likely means. */
function unknownMember(path: readonly PropertyKey[], key: string): string {
  const known = membersAt(path);
  const closest = known.map((name) => ({ name, d: distance(key, name) })).sort((a, b) => a.d - b.d)[0];
  if (closest !== undefined && closest.d <= Math.max(2, Math.floor(key.length / 3))) return `not a member of ${pathText(path)} (did you mean ${closest.name}?)`;
  return `not a member of ${pathText(path)}, which has ${known.join(', ')}`;
}

/** Every problem zod found in `definition`, one per member. */
function definitionProblems(error: z.core.$ZodError, definition: unknown): DefinitionProblem[] {
  return error.issues.flatMap((issue): DefinitionProblem[] => {
    if (issue.code === 'unrecognized_keys') return issue.keys.map((key) => ({ path: pathText([...issue.path, key]), problem: unknownMember(issue.path, key) }));
    const expected = DEFINITION_EXPECTATIONS[patternOf(issue.path)];
    // A refinement of the whole definition (no kind at all) says what it wants in its own words.
    if (expected === undefined || (issue.code === 'custom' && issue.path.length === 0)) return [{ path: pathText(issue.path), problem: issue.message }];
    const value = valueAt(definition, issue.path);
    return [{ path: pathText(issue.path), problem: value === undefined ? `missing; expected ${expected}` : `expected ${expected}, got ${describeValue(value)}` }];
  });
}

/** The `info.id` of a definition, when it has a readable one, to name it in the refusal. */
function idOf(definition: unknown): string | undefined {
  const id = valueAt(definition, ['info', 'id']);
  return typeof id === 'string' && id !== '' ? id : undefined;
}

/**
 * Checks `definition` against the schema; returns it unchanged (the author's own objects, so a
 * handler's `this` is what the author wrote) or throws MepError(ERR_USAGE) with `data.reason`
 * `bad-definition`, `data.extension` (the id, when readable) and `data.problems`.
 *
 * @example
 * const definition = checkDefinition(candidate); // throws for { backend: { irVersions: ['3'] } }
 */
export function checkDefinition(definition: unknown): ExtensionDefinition {
  // Parsed once per extension: zod's compiled fast path would cost more to build than it saves.
  const result = ExtensionDefinition.safeParse(definition, { jitless: true });
  if (result.success) return definition as ExtensionDefinition;
  const problems = definitionProblems(result.error, definition);
  const id = idOf(definition);
  const shown = problems.slice(0, SHOWN_PROBLEMS).map((p) => `${p.path}: ${p.problem}`);
  if (problems.length > SHOWN_PROBLEMS) shown.push(`and ${problems.length - SHOWN_PROBLEMS} more`);
  const what = id === undefined ? 'the extension definition' : `the definition of '${id}'`;
  throw new MepError(LocalErrorCode.Usage, `defineExtension: ${what} is not valid: ${shown.join('; ')}. Fix the object passed to defineExtension in the extension's entry.`, {
    data: { reason: 'bad-definition', ...(id === undefined ? {} : { extension: id }), problems },
  });
}

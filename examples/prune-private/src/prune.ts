/**
 * Dead private definition elimination for Morphir IR v3 Library distributions: every public
 * module, type and value is kept, and so is every private definition reachable from them through
 * any reference (types, value signatures and value bodies). What nothing public can reach is
 * removed, so the result is smaller and still a complete, valid distribution.
 */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Entry = [Json, { access?: string; value?: Json }];

/** A definition key: `module path|local name` in Morphir's canonical words. */
const key = (modulePath: Json, local: Json) => `${JSON.stringify(modulePath)}|${JSON.stringify(local)}`;

const isName = (v: Json): v is string[] => Array.isArray(v) && v.length > 0 && v.every((w) => typeof w === 'string');
const isPath = (v: Json): v is string[][] => Array.isArray(v) && v.length > 0 && v.every(isName);

/** Every FQName-shaped triple `[packagePath, modulePath, name]` anywhere inside `value`. */
function references(value: Json, packagePath: string, out: Set<string>): void {
  if (!Array.isArray(value)) {
    if (value && typeof value === 'object') for (const v of Object.values(value)) references(v, packagePath, out);
    return;
  }
  if (value.length === 3 && isPath(value[0]) && isPath(value[1]) && isName(value[2]) && JSON.stringify(value[0]) === packagePath) {
    out.add(key(value[1], value[2]));
  }
  for (const v of value) references(v, packagePath, out);
}

/** What {@link prunePrivate} removed, as canonical `module#name` strings. */
export interface PruneReport {
  removedTypes: string[];
  removedValues: string[];
  removedModules: string[];
}

const label = (modulePath: Json, local: Json) =>
  `${(modulePath as string[][]).map((n) => n.join('-')).join('/')}#${(local as string[]).join('-')}`;

/**
 * Returns a copy of a v3 distribution without unreachable private definitions. `stripDocs`
 * also drops every `doc`. Throws a TypeError naming the path when the IR is not a v3 Library.
 */
export function prunePrivate(ir: { distribution?: Json; [k: string]: Json | undefined }, stripDocs = false): { ir: Json; report: PruneReport } {
  const dist = ir.distribution;
  if (!Array.isArray(dist) || dist[0] !== 'Library' || !isPath(dist[1]) || typeof dist[3] !== 'object' || dist[3] === null || Array.isArray(dist[3])) {
    throw new TypeError('distribution must be ["Library", packagePath, dependencies, { modules }]');
  }
  const packagePath = JSON.stringify(dist[1]);
  const modules = (dist[3] as { modules?: Json }).modules;
  if (!Array.isArray(modules)) throw new TypeError('distribution[3].modules must be an array');
  const entries = new Map<string, { modulePublic: boolean; access: string; value: Json }>();
  for (const m of modules as Entry[]) {
    const def = (m[1]?.value ?? {}) as { types?: Entry[]; values?: Entry[] };
    for (const [name, d] of [...(def.types ?? []), ...(def.values ?? [])]) {
      entries.set(key(m[0], name), { modulePublic: m[1]?.access === 'Public', access: d.access ?? 'Private', value: d.value ?? null });
    }
  }
  // Reachability from the public surface, to a fixed point.
  const live = new Set<string>([...entries].filter(([, e]) => e.modulePublic && e.access === 'Public').map(([k]) => k));
  const todo = [...live];
  while (todo.length > 0) {
    const found = new Set<string>();
    references((entries.get(todo.pop() as string) as { value: Json }).value, packagePath, found);
    for (const k of found) if (entries.has(k) && !live.has(k)) (live.add(k), todo.push(k));
  }
  const report: PruneReport = { removedTypes: [], removedValues: [], removedModules: [] };
  const keep = (modulePath: Json, list: Entry[] | undefined, removed: string[]) =>
    (list ?? []).filter(([name]) => live.has(key(modulePath, name)) || (removed.push(label(modulePath, name)), false));
  const kept: Entry[] = [];
  for (const [path, m] of modules as Entry[]) {
    const def = (m.value ?? {}) as { types?: Entry[]; values?: Entry[]; doc?: Json };
    const types = keep(path, def.types, report.removedTypes);
    const values = keep(path, def.values, report.removedValues);
    if (m.access !== 'Public' && types.length === 0 && values.length === 0) {
      report.removedModules.push((path as string[][]).map((n) => n.join('-')).join('/'));
      continue;
    }
    kept.push([path, { ...m, value: { ...def, types, values } }]);
  }
  const pruned = { ...ir, distribution: [dist[0], dist[1], dist[2], { ...(dist[3] as object), modules: kept }] } as Json;
  return { ir: stripDocs ? withoutDocs(pruned) : pruned, report };
}

function withoutDocs(value: Json): Json {
  if (Array.isArray(value)) return value.map(withoutDocs);
  if (value && typeof value === 'object') {
    const out: { [k: string]: Json } = {};
    for (const [k, v] of Object.entries(value)) if (k !== 'doc') out[k] = withoutDocs(v);
    return out;
  }
  return value;
}

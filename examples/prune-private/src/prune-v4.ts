/**
 * Dead private definition elimination for Morphir IR v4 Library distributions, with the same
 * contract as the v3 {@link prunePrivate}: every public module, type and value is kept, and so is
 * every private definition reachable from them (through types, signatures and bodies, where v4
 * spells references as `package:module#name` strings). A constructor reference keeps its type.
 * Containers keep their spelling (objects keyed by name, or `[key, value]` pairs; `{"access",
 * "value"}` or `{"Public": …}`), so the output reads like the input.
 */
import { isFqNameString, isObject, v4FqName, v4ModulePath, v4Name, v4PackagePath } from '../../avro/src/v4-syntax.ts';
import type { PruneReport } from './prune.ts';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

/** A collection as `[rawKey, value]` pairs, and a rebuild in the original spelling. */
function items(container: Json | undefined): { pairs: [Json, Json][]; rebuild: (kept: [Json, Json][]) => Json } {
  if (Array.isArray(container)) {
    return { pairs: container.map((e) => [(e as Json[])[0], (e as Json[])[1]]), rebuild: (kept) => kept.map(([k, v]) => [k, v]) };
  }
  if (isObject(container)) {
    const object = container as JsonObject;
    return { pairs: Object.keys(object).map((k) => [k, object[k]]), rebuild: (kept) => Object.fromEntries(kept.map(([k, v]) => [k as string, v])) };
  }
  return { pairs: [], rebuild: () => container ?? {} };
}

function accessOf(raw: Json): { access: 'Public' | 'Private'; value: Json; wrap: (value: Json) => Json } {
  const node = (isObject(raw) ? raw : {}) as JsonObject;
  if (node.access === 'Public' || node.access === 'Private') {
    const access = node.access;
    if ('value' in node) return { access, value: node.value, wrap: (value) => ({ ...node, value }) };
    return { access, value: node, wrap: (value) => value };
  }
  if ('Public' in node) return { access: 'Public', value: node.Public, wrap: (value) => ({ ...node, Public: value }) };
  if ('Private' in node) return { access: 'Private', value: node.Private, wrap: (value) => ({ ...node, Private: value }) };
  throw new TypeError('an item is neither {"access", "value"} nor {"Public"|"Private": …}');
}

/** Every FQName string inside `value` that belongs to `packageName`, as `module#name`. */
function references(value: Json, packageName: string, out: Set<string>): void {
  if (typeof value === 'string') {
    if (!isFqNameString(value)) return;
    try {
      const fq = v4FqName(value, '');
      if (fq.startsWith(`${packageName}:`)) out.add(fq.slice(packageName.length + 1));
    } catch {
      // A string that only looks like an FQName (a literal, a doc line) refers to nothing.
    }
    return;
  }
  if (Array.isArray(value)) for (const v of value) references(v, packageName, out);
  else if (isObject(value)) for (const v of Object.values(value as JsonObject)) references(v, packageName, out);
}

function withoutDoc(value: Json): Json {
  if (!isObject(value)) return value;
  const { doc: _doc, ...rest } = value as JsonObject;
  return rest;
}

/** Constructor names of a custom type definition (so a constructor reference keeps its type). */
function constructorNames(definition: Json): string[] {
  const custom = isObject(definition) ? (definition as JsonObject).CustomTypeDefinition : undefined;
  if (!isObject(custom)) return [];
  const ctors = (custom as JsonObject).accessControlledConstructors;
  if (!isObject(ctors)) return [];
  const inner = accessOf(ctors).value;
  return items(inner).pairs.map(([k]) => v4Name(k, 'constructor'));
}

/**
 * Returns a copy of a v4 Library distribution without unreachable private definitions;
 * `stripDocs` also drops module, type and value docs.
 * @throws {TypeError} when `ir` is not a v4 Library distribution.
 */
export function prunePrivateV4(ir: { distribution?: Json; [k: string]: Json | undefined }, stripDocs = false): { ir: Json; report: PruneReport } {
  const dist = ir.distribution;
  // `{"Library": {packageName, dependencies, def}}`, or the array spelling `["Library", name, deps, def]`.
  const asArray = Array.isArray(dist) && dist[0] === 'Library';
  const library = asArray ? ({ packageName: dist[1], dependencies: dist[2], def: dist[3] } as JsonObject) : isObject(dist) ? ((dist as JsonObject).Library as JsonObject | undefined) : undefined;
  if (!isObject(library) || !isObject(library.def)) throw new TypeError('distribution must be {"Library": {packageName, dependencies, def: {modules}}}');
  const packageName = v4PackagePath(library.packageName, 'packageName');
  const modules = items((library.def as JsonObject).modules);
  type Entry = { key: string; label: string; modulePublic: boolean; access: string; value: Json };
  const entries = new Map<string, Entry>();
  const ownerOfConstructor = new Map<string, string>();
  for (const [moduleKey, raw] of modules.pairs) {
    const module = accessOf(raw);
    const path = v4ModulePath(moduleKey, 'module').join('/');
    const content = (module.value ?? {}) as JsonObject;
    for (const [kind, list] of [['type', content.types], ['value', content.values]] as const) {
      for (const [name, item] of items(list).pairs) {
        const key = `${path}#${v4Name(name, kind)}`;
        const { access, value } = accessOf(item);
        entries.set(`${kind}:${key}`, { key, label: key, modulePublic: module.access === 'Public', access, value });
        if (kind === 'type') for (const ctor of constructorNames(value)) ownerOfConstructor.set(`${path}#${ctor}`, key);
      }
    }
  }
  // Reachability from the public surface, to a fixed point.
  const liveKeys = new Set<string>();
  const todo: Json[] = [];
  const reach = (key: string): void => {
    const resolved = ownerOfConstructor.get(key) ?? key;
    if (liveKeys.has(resolved)) return;
    liveKeys.add(resolved);
    for (const kind of ['type', 'value']) {
      const entry = entries.get(`${kind}:${resolved}`);
      if (entry) todo.push(entry.value);
    }
  };
  for (const entry of entries.values()) if (entry.modulePublic && entry.access === 'Public') reach(entry.key);
  while (todo.length > 0) {
    const found = new Set<string>();
    references(todo.pop() as Json, packageName, found);
    for (const key of found) reach(key);
  }
  const report: PruneReport = { removedTypes: [], removedValues: [], removedModules: [] };
  const kept: [Json, Json][] = [];
  for (const [moduleKey, raw] of modules.pairs) {
    const module = accessOf(raw);
    const path = v4ModulePath(moduleKey, 'module').join('/');
    const content = { ...((module.value ?? {}) as JsonObject) };
    let remaining = 0;
    for (const [field, kind, removed] of [['types', 'type', report.removedTypes], ['values', 'value', report.removedValues]] as const) {
      if (content[field] === undefined) continue;
      const list = items(content[field]);
      const survivors = list.pairs.filter(([name]) => {
        const key = `${path}#${v4Name(name, kind)}`;
        const live = liveKeys.has(key) && entries.has(`${kind}:${key}`);
        if (!live) removed.push(key);
        return live;
      });
      remaining += survivors.length;
      content[field] = list.rebuild(stripDocs ? survivors.map(([k, v]) => [k, stripItemDocs(v)]) : survivors);
    }
    if (module.access !== 'Public' && remaining === 0) {
      report.removedModules.push(path);
      continue;
    }
    kept.push([moduleKey, module.wrap(stripDocs ? withoutDoc(content) : content)]);
  }
  const def = { ...(library.def as JsonObject), modules: modules.rebuild(kept) };
  const distribution = asArray ? [dist[0], dist[1], dist[2], def, ...(dist as Json[]).slice(4)] : { ...(dist as JsonObject), Library: { ...library, def } };
  return { ir: { ...ir, distribution } as Json, report };
}

/** Drop the doc of an access-controlled type or value entry (beside `access` or beside the tag). */
function stripItemDocs(item: Json): Json {
  const { value, wrap } = accessOf(item);
  return withoutDoc(wrap(withoutDoc(value)));
}

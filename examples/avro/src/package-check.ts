/**
 * Final checks of a projection before rendering: roots, schemas and protocols are unique, and
 * every named type they reference is declared (AVRO006 otherwise, e.g. a missing linked type).
 */
import { missingLinkedDependency, nameCollision } from './diagnostics.ts';
import type { AvroPackage, AvroProtocol, AvroRoot, AvroType, FullName, NamedSchema } from './model.ts';
import { compareFullNames, fullNameKey } from './model.ts';
import type { Projector } from './projector.ts';

function collectReferences(tpe: AvroType, schemas: ReadonlyMap<string, NamedSchema>, out: Map<string, FullName>): void {
  switch (tpe.kind) {
    case 'array':
      return collectReferences(tpe.items, schemas, out);
    case 'map':
      return collectReferences(tpe.values, schemas, out);
    case 'logical':
    case 'annotated':
      return collectReferences(tpe.physical, schemas, out);
    case 'union':
      for (const branch of tpe.branches) collectReferences(branch, schemas, out);
      return;
    case 'named': {
      const key = fullNameKey(tpe.fullName);
      if (out.has(key)) return;
      out.set(key, tpe.fullName);
      const schema = schemas.get(key);
      if (schema?.kind === 'record') for (const field of schema.fields) collectReferences(field.type, schemas, out);
      return;
    }
    case 'primitive':
      return;
  }
}

/** `items` sorted by full name; a list in order already (roots usually are) is not sorted again. */
function byFullName<T extends { readonly fullName: FullName }>(items: T[]): T[] {
  for (let i = 1; i < items.length; i++) {
    if (compareFullNames(items[i - 1].fullName, items[i].fullName) > 0) return items.sort((a, b) => compareFullNames(a.fullName, b.fullName));
  }
  return items;
}

function sortedNames(names: Map<string, FullName>): FullName[] {
  return [...names.values()].sort(compareFullNames);
}

/**
 * Freeze the projector's state into an {@link AvroPackage}, filling each root's and protocol's
 * transitive references.
 * @throws {AvroError} AVRO003 on a duplicate, AVRO006 on a reference to an undeclared type.
 */
export function finishPackage(p: Projector): AvroPackage {
  const roots: AvroRoot[] = byFullName([...p.roots.values()]);
  const sources = new Set<string>();
  for (const root of roots) {
    if (sources.has(root.source)) throw nameCollision(root.source);
    sources.add(root.source);
  }
  for (const key of p.linkedSchemas.keys()) if (p.schemas.has(key)) throw nameCollision(key);
  const available = p.linkedSchemas.size === 0 ? p.schemas : new Map<string, NamedSchema>([...p.schemas, ...p.linkedSchemas]);
  // Every available schema's fields are visited here, so following a reference into the schema
  // it names would only visit those fields again: direct references (no schemas to follow) make
  // the same set.
  const all = new Map<string, FullName>();
  const noSchemas = new Map<string, NamedSchema>();
  for (const schema of available.values()) {
    if (schema.kind === 'record') for (const field of schema.fields) collectReferences(field.type, noSchemas, all);
  }
  for (const root of roots) {
    // What a root reaches beyond its own type is already in `all` (every schema's references
    // were collected above), so only its direct references are new for the AVRO006 check.
    collectReferences(root.type, noSchemas, all);
    // The transitive set is only read by the IDL renderer; computed per root on first use, so
    // JSON output of a deep model does not pay roots × closure.
    let references: FullName[] | undefined;
    Object.defineProperty(root, 'references', {
      configurable: true,
      enumerable: true,
      get: () => {
        if (references === undefined) {
          const refs = new Map<string, FullName>();
          collectReferences(root.type, available, refs);
          references = sortedNames(refs);
        }
        return references;
      },
    });
  }
  const protocols: AvroProtocol[] = byFullName([...p.protocols.values()]);
  for (const protocol of protocols) {
    const refs = new Map<string, FullName>();
    for (const type of protocol.typeRoots) collectReferences(type, available, refs);
    for (const message of protocol.messages) {
      for (const field of message.request) collectReferences(field.type, available, refs);
      collectReferences(message.response, available, refs);
    }
    protocol.references = sortedNames(refs);
    for (const [key, name] of refs) all.set(key, name);
  }
  for (const key of all.keys()) {
    if (available.has(key)) continue;
    // The first missing name in sorted order is the one reported.
    throw missingLinkedDependency([...all.keys()].filter((k) => !available.has(k)).sort()[0]);
  }
  return { roots, schemas: sortedMap(p.schemas), linkedSchemas: sortedMap(p.linkedSchemas), protocols };
}

/** `map` in key order (the default sort's order, code units, without a comparator call per pair). */
function sortedMap<V>(map: ReadonlyMap<string, V>): Map<string, V> {
  const sorted = new Map<string, V>();
  for (const key of [...map.keys()].sort()) sorted.set(key, map.get(key) as V);
  return sorted;
}

/**
 * Full names of the named types carried by some protocol's `types`; a named root among them
 * gets no schema artifact of its own.
 */
export function carriedByProtocols(pkg: AvroPackage): Set<string> {
  const carried = new Set<string>();
  for (const protocol of pkg.protocols) for (const name of protocol.references) carried.add(fullNameKey(name));
  return carried;
}

/** Whether `root` is a named type some protocol already carries. */
export function isCarried(carried: ReadonlySet<string>, root: AvroRoot): boolean {
  return root.type.kind === 'named' && carried.has(fullNameKey(root.type.fullName));
}

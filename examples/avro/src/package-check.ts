/**
 * Final checks of a projection before rendering: roots, schemas and protocols are unique, and
 * every named type they reference is declared (AVRO006 otherwise, e.g. a missing linked type).
 */
import { missingLinkedDependency, nameCollision } from './diagnostics.ts';
import type { AvroPackage, AvroProtocol, AvroRoot, AvroType, FullName, NamedSchema } from './model.ts';
import { compareFullNames, fullNameKey } from './model.ts';
import type { Projector } from './projector.ts';
import { rememberGraph, schemaGraph, schemaGraphOf, sortedKeys } from './schema-graph.ts';

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
  for (let i = 0; i < roots.length; i++) {
    if (sources.has(roots[i].source)) throw nameCollision(roots[i].source);
    sources.add(roots[i].source);
  }
  for (const key of p.linkedSchemas.keys()) if (p.schemas.has(key)) throw nameCollision(key);
  const schemaNames = sortedKeys(p.schemas);
  const [schemas, schemaList] = inOrder(p.schemas, schemaNames);
  const [linkedSchemas] = inOrder(p.linkedSchemas, sortedKeys(p.linkedSchemas));
  const available = linkedSchemas.size === 0 ? schemas : new Map<string, NamedSchema>([...schemas, ...linkedSchemas]);
  // Walks every schema's fields once: what they reference, for the AVRO006 check here and for
  // the renderers' dependency order (see packageGraph).
  const graph = available === schemas ? schemaGraph(schemaNames, schemaList) : schemaGraphOf(available);
  // What a root or protocol reaches through a schema is in the graph already, so only their
  // direct references are new for the AVRO006 check.
  const direct = new Map<string, FullName>();
  const noSchemas = new Map<string, NamedSchema>();
  // The transitive set is only read by the IDL renderer: computed per root on first use (one
  // getter for all roots, no closure per root), so JSON output does not pay roots × closure.
  const references: PropertyDescriptor = {
    configurable: true,
    enumerable: true,
    get(this: AvroRoot): FullName[] {
      const refs = new Map<string, FullName>();
      collectReferences(this.type, available, refs);
      const value = sortedNames(refs);
      Object.defineProperty(this, 'references', { value, configurable: true, enumerable: true, writable: true });
      return value;
    },
  };
  for (let i = 0; i < roots.length; i++) {
    const root = roots[i];
    // Most roots are a named type: looked up here rather than collected.
    if (root.type.kind !== 'named') collectReferences(root.type, noSchemas, direct);
    else if (!available.has(fullNameKey(root.type.fullName))) direct.set(fullNameKey(root.type.fullName), root.type.fullName);
    Object.defineProperty(root, 'references', references);
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
    for (const [key, name] of refs) direct.set(key, name);
  }
  const undeclared = graph.undeclared.slice();
  for (const key of direct.keys()) if (!available.has(key)) undeclared.push(key);
  // The first missing name in sorted order is the one reported.
  if (undeclared.length > 0) throw missingLinkedDependency(undeclared.sort()[0]);
  const pkg: AvroPackage = { roots, schemas, linkedSchemas, protocols, nestedNamespaces: p.nestedNamespaces };
  rememberGraph(pkg, graph);
  return pkg;
}

/** `map` with its entries in the order of `keys`, and its values in that order. */
function inOrder<V>(map: ReadonlyMap<string, V>, keys: readonly string[]): [Map<string, V>, V[]] {
  const sorted = new Map<string, V>();
  const values: V[] = [];
  for (let i = 0; i < keys.length; i++) {
    const value = map.get(keys[i]) as V;
    sorted.set(keys[i], value);
    values.push(value);
  }
  return [sorted, values];
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

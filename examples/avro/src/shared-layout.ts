/**
 * The `dependencies=shared` layout: every named schema is defined exactly once, in one `.avsc`
 * per module namespace (`acme/app/orders.avsc` for `acme.app.orders`), as a JSON array (an
 * Avro union) of the module's named types in dependency order. Types of other namespaces are
 * referenced by full name, so the output grows with the model, not with each root's closure,
 * and a big model is a few files rather than one per type. Loading the files in the order they
 * are returned into one registry (avsc `registry`, Java `Schema.Parser`) defines every type
 * before its first use.
 */
import { artifactPath } from './json-syntax.ts';
import type { JsonValue, NamedSchema } from './model.ts';
import { fullNameKey } from './model.ts';
import { componentOrder, condense, type SchemaGraph } from './schema-graph.ts';

/** A definition: one named schema, or a cycle of them defined inside its leader. */
export interface SharedDefinition {
  readonly leader: NamedSchema;
  /**
   * Its JSON, rendered on demand: an artifact's definitions are rendered when it is written,
   * so the JSON of the whole model is never alive at once (in QuickJS every collection walks
   * whatever is alive).
   */
  readonly render: () => JsonValue;
  readonly members: readonly string[];
}

/** One artifact of the shared layout. */
export interface SharedArtifact {
  readonly path: string;
  /** The definitions, each after everything it references within the file. */
  readonly definitions: readonly SharedDefinition[];
}

/**
 * The module namespace a schema belongs to: constructor records live in `<ns>.<Type>`, nested
 * under their type's full name, so climb while the namespace is itself a schema's full name.
 */
function moduleNamespace(schema: NamedSchema, schemas: ReadonlyMap<string, NamedSchema>): string {
  let namespace = schema.fullName.namespace;
  for (let parent = schemas.get(namespace); parent !== undefined; parent = schemas.get(namespace)) namespace = parent.fullName.namespace;
  return namespace;
}

function namespacePath(namespace: string): string {
  const dot = namespace.lastIndexOf('.');
  return artifactPath({ namespace: dot < 0 ? '' : namespace.slice(0, dot), name: namespace.slice(dot + 1) || '_' }, 'avsc');
}

/**
 * Group `definitions` (all named schemas, dependencies first) into one artifact per module
 * namespace. Namespaces that reference each other in a cycle (impossible from Elm, possible in
 * hand-written IR) share one artifact, named after the first of them.
 */
export function sharedArtifacts(
  definitions: readonly SharedDefinition[],
  schemas: ReadonlyMap<string, NamedSchema>,
  graph: SchemaGraph,
): SharedArtifact[] {
  const groupOf = new Map<string, string>();
  for (const definition of definitions) {
    const group = moduleNamespace(definition.leader, schemas);
    for (const member of definition.members) groupOf.set(member, group);
  }
  const groupGraph: SchemaGraph = new Map();
  for (const group of [...new Set(groupOf.values())].sort()) groupGraph.set(group, []);
  for (const [name, refs] of graph) {
    const from = groupOf.get(name) as string;
    const edges = groupGraph.get(from) as string[];
    for (const ref of refs) {
      const to = groupOf.get(ref) as string;
      if (to !== from && !edges.includes(to)) edges.push(to);
    }
  }
  for (const edges of groupGraph.values()) edges.sort();
  const { components, componentOf, dependencies } = condense(groupGraph);
  const byComponent = components.map((): SharedDefinition[] => []);
  // `definitions` is already in dependency order, so each file keeps that order.
  for (const definition of definitions) byComponent[componentOf.get(groupOf.get(definition.members[0]) as string) as number].push(definition);
  return componentOrder(components, dependencies).map((i) => ({ path: namespacePath(components[i][0]), definitions: byComponent[i] }));
}

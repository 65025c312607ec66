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
import type { NamedSchema } from './model.ts';
import { ascending, componentOrder, condense, type SchemaGraph } from './schema-graph.ts';

/** A definition: one named schema, or a cycle of them defined inside its leader. */
export interface SharedDefinition {
  readonly leader: NamedSchema;
  /** The graph ids of the schemas it defines, ascending (the leader's first). */
  readonly members: readonly number[];
}

/** One artifact of the shared layout. */
export interface SharedArtifact {
  readonly path: string;
  /** The definitions, each after everything it references within the file. */
  readonly definitions: readonly SharedDefinition[];
}

/**
 * The module namespace a schema belongs to: constructor records live in `<ns>.<Type>` (or
 * `<ns>.<type>`, see `nested`), nested under their type, so climb while the namespace is itself a
 * schema's full name or nested under one.
 */
function moduleNamespace(schema: NamedSchema, schemas: ReadonlyMap<string, NamedSchema>, nested: ReadonlyMap<string, string>): string {
  let namespace = schema.fullName.namespace;
  for (let parent = schemas.get(nested.get(namespace) ?? namespace); parent !== undefined; parent = schemas.get(nested.get(namespace) ?? namespace)) {
    namespace = parent.fullName.namespace;
  }
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
  nested: ReadonlyMap<string, string>,
): SharedArtifact[] {
  // The module namespaces as a graph of their own, by id like the schema graph (see
  // schema-graph.ts). A module's schemas share a few namespaces, so each namespace is
  // resolved to its module once (`slotOf`), and each definition costs one look-up.
  const slotOf = new Map<string, number>();
  const slotModules: string[] = [];
  const definitionSlots = new Int32Array(definitions.length);
  for (let d = 0; d < definitions.length; d++) {
    const { leader } = definitions[d];
    let slot = slotOf.get(leader.fullName.namespace);
    if (slot === undefined) {
      slot = slotModules.length;
      slotModules.push(moduleNamespace(leader, schemas, nested));
      slotOf.set(leader.fullName.namespace, slot);
    }
    definitionSlots[d] = slot;
  }
  const namespaces = [...new Set(slotModules)].sort();
  const namespaceIds = new Map<string, number>();
  for (let g = 0; g < namespaces.length; g++) namespaceIds.set(namespaces[g], g);
  const slotGroups = new Int32Array(slotModules.length);
  for (let slot = 0; slot < slotModules.length; slot++) slotGroups[slot] = namespaceIds.get(slotModules[slot]) as number;
  const groupOf = new Int32Array(graph.names.length);
  const groupMembers: number[][] = namespaces.map((): number[] => []);
  for (let d = 0; d < definitions.length; d++) {
    const group = slotGroups[definitionSlots[d]];
    const { members } = definitions[d];
    for (let m = 0; m < members.length; m++) {
      groupOf[members[m]] = group;
      groupMembers[group].push(members[m]);
    }
  }
  // Which group last listed a group, so each is listed once per group.
  const listedBy = new Int32Array(namespaces.length).fill(-1);
  const groupEdges: number[][] = [];
  for (let group = 0; group < namespaces.length; group++) {
    const targets: number[] = [];
    const members = groupMembers[group];
    for (let m = 0; m < members.length; m++) {
      const refs = graph.edges[members[m]];
      for (let i = 0; i < refs.length; i++) {
        const target = groupOf[refs[i]];
        if (target !== group && listedBy[target] !== group) {
          listedBy[target] = group;
          targets.push(target);
        }
      }
    }
    groupEdges.push(ascending(targets));
  }
  const condensed = condense(groupEdges);
  const byComponent = condensed.components.map((): SharedDefinition[] => []);
  // `definitions` is already in dependency order, so each file keeps that order.
  for (let d = 0; d < definitions.length; d++) byComponent[condensed.componentOf[groupOf[definitions[d].members[0]]]].push(definitions[d]);
  return componentOrder(condensed).map((c) => ({ path: namespacePath(namespaces[condensed.components[c][0]]), definitions: byComponent[c] }));
}

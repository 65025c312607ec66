/**
 * The graph of named schemas (who references whom), its strongly connected components and a
 * deterministic dependency order, used to emit linked declarations before their users.
 *
 * Nodes are integer ids (a name's index in sorted order), edges plain number lists, marks typed
 * arrays: a big model's graph has thousands of nodes, and in QuickJS a map operation, a
 * comparator call or an iterator per edge dominated. Since ids follow name order, sorting ids
 * numerically sorts the names.
 */
import type { AvroPackage, AvroType, NamedSchema } from './model.ts';
import { fullNameKey } from './model.ts';

/** Node ids to the ids of the nodes they reference, each list ascending and without repeats. */
export type Edges = readonly (readonly number[])[];

/** The reference graph over a package's named schemas (own and linked). */
export interface SchemaGraph {
  /** Every named schema's full name, sorted; a node's id is its index here. */
  readonly names: readonly string[];
  /** The schemas by id. */
  readonly schemas: readonly NamedSchema[];
  readonly ids: ReadonlyMap<string, number>;
  /** The declared schemas each schema's fields reference (itself included, when it does). */
  readonly edges: Edges;
  /** Names referenced by some field but not declared (what AVRO006 reports). */
  readonly undeclared: readonly string[];
}

/** `map`'s keys in code-unit order (no comparator: one native sort). */
export function sortedKeys(map: ReadonlyMap<string, unknown>): string[] {
  return [...map.keys()].sort();
}

/**
 * `list` sorted in place by each item's `rank`, or by value. A short list (most are) is sorted
 * by insertion: QuickJS's sort makes a comparator call per pair, even for a list in order.
 */
export function ascending(list: number[], rank?: Int32Array): number[] {
  if (list.length > 32) return list.sort(rank === undefined ? (a, b) => a - b : (a, b) => rank[a] - rank[b]);
  for (let i = 1; i < list.length; i++) {
    const item = list[i];
    const key = rank === undefined ? item : rank[item];
    let j = i - 1;
    for (; j >= 0 && (rank === undefined ? list[j] : rank[list[j]]) > key; j--) list[j + 1] = list[j];
    list[j + 1] = item;
  }
  return list;
}

/** Collects the ids a type references directly (not following into other schemas). */
class ReferenceCollector {
  /** Which node last listed each id, so each is listed once per node. */
  private readonly listedBy: Int32Array;
  readonly undeclared = new Set<string>();

  constructor(private readonly ids: ReadonlyMap<string, number>) {
    this.listedBy = new Int32Array(ids.size).fill(-1);
  }

  collect(tpe: AvroType, node: number, out: number[]): void {
    switch (tpe.kind) {
      case 'named': {
        const key = fullNameKey(tpe.fullName);
        const id = this.ids.get(key);
        if (id === undefined) this.undeclared.add(key);
        else if (this.listedBy[id] !== node) {
          this.listedBy[id] = node;
          out.push(id);
        }
        return;
      }
      case 'array':
        return this.collect(tpe.items, node, out);
      case 'map':
        return this.collect(tpe.values, node, out);
      case 'logical':
      case 'annotated':
        return this.collect(tpe.physical, node, out);
      case 'union':
        for (let i = 0; i < tpe.branches.length; i++) this.collect(tpe.branches[i], node, out);
        return;
      case 'primitive':
        return;
    }
  }
}

/** The reference graph over schemas listed by id: `names` sorted, `schemas` in the same order. */
export function schemaGraph(names: readonly string[], schemas: readonly NamedSchema[]): SchemaGraph {
  const ids = new Map<string, number>();
  for (let id = 0; id < names.length; id++) ids.set(names[id], id);
  const collector = new ReferenceCollector(ids);
  const edges: number[][] = [];
  for (let id = 0; id < names.length; id++) {
    const schema = schemas[id];
    const refs: number[] = [];
    if (schema.kind === 'record') {
      for (let i = 0; i < schema.fields.length; i++) {
        // No call for a primitive field (most of them).
        const type = schema.fields[i].type;
        if (type.kind !== 'primitive') collector.collect(type, id, refs);
      }
    }
    if (refs.length > 1) ascending(refs);
    edges.push(refs);
  }
  return { names, schemas, ids, edges, undeclared: [...collector.undeclared] };
}

/** The reference graph over the schemas of `map`. */
export function schemaGraphOf(map: ReadonlyMap<string, NamedSchema>): SchemaGraph {
  const names = sortedKeys(map);
  const schemas: NamedSchema[] = [];
  for (let id = 0; id < names.length; id++) schemas.push(map.get(names[id]) as NamedSchema);
  return schemaGraph(names, schemas);
}

/**
 * The graph of each checked package, made by finishPackage (whose AVRO006 check walks every
 * field anyway) and reused by the renderers instead of walking the fields again.
 */
const packageGraphs = new WeakMap<AvroPackage, SchemaGraph>();

/** Remember `graph` (over `pkg`'s own and linked schemas) as the graph of `pkg`. */
export function rememberGraph(pkg: AvroPackage, graph: SchemaGraph): void {
  packageGraphs.set(pkg, graph);
}

/** The reference graph over `pkg`'s own and linked schemas. */
export function packageGraph(pkg: AvroPackage): SchemaGraph {
  let graph = packageGraphs.get(pkg);
  if (graph === undefined) {
    graph = schemaGraphOf(pkg.linkedSchemas.size === 0 ? pkg.schemas : new Map([...pkg.schemas, ...pkg.linkedSchemas]));
    packageGraphs.set(pkg, graph);
  }
  return graph;
}

/** The graph keyed by name: each schema's full name to the sorted names it references. */
export function edgesByName(graph: SchemaGraph): Map<string, string[]> {
  const byName = new Map<string, string[]>();
  for (let id = 0; id < graph.names.length; id++) {
    const refs = graph.edges[id];
    const names: string[] = [];
    for (let i = 0; i < refs.length; i++) names.push(graph.names[refs[i]]);
    byName.set(graph.names[id], names);
  }
  return byName;
}

/** A graph condensed to its strongly connected components and the edges between them. */
export interface Condensed {
  /** Each component's member ids, ascending, in completion order (dependencies first). */
  readonly components: readonly (readonly number[])[];
  readonly componentOf: Int32Array;
  /** For each component, the other components it references, each once, by first member. */
  readonly dependencies: readonly (readonly number[])[];
}

/** Condenses a graph to its components (Tarjan's algorithm) and their edges. */
export function condense(edges: Edges): Condensed {
  const count = edges.length;
  const index = new Int32Array(count).fill(-1);
  const low = new Int32Array(count);
  const onStack = new Uint8Array(count);
  const componentOf = new Int32Array(count);
  // A typed array and its top, and appends by index: no push or pop call per node (a method
  // call in QuickJS).
  const stack = new Int32Array(count);
  let top = 0;
  const components: number[][] = [];
  let next = 0;
  const visit = (node: number): void => {
    index[node] = low[node] = next++;
    stack[top++] = node;
    onStack[node] = 1;
    const refs = edges[node];
    for (let i = 0; i < refs.length; i++) {
      const dep = refs[i];
      if (index[dep] < 0) {
        visit(dep);
        if (low[dep] < low[node]) low[node] = low[dep];
      } else if (onStack[dep] === 1 && index[dep] < low[node]) {
        low[node] = index[dep];
      }
    }
    if (low[node] !== index[node]) return;
    const c = components.length;
    const component: number[] = [];
    let member: number;
    do {
      member = stack[--top];
      onStack[member] = 0;
      componentOf[member] = c;
      component[component.length] = member;
    } while (member !== node);
    components[c] = component.length > 1 ? ascending(component) : component;
  };
  for (let id = 0; id < count; id++) if (index[id] < 0) visit(id);
  const leader = new Int32Array(components.length);
  for (let c = 0; c < components.length; c++) leader[c] = components[c][0];
  // Which component last listed a dependency, so each is listed once per component.
  const listedBy = new Int32Array(components.length).fill(-1);
  const dependencies: (readonly number[])[] = [];
  for (let c = 0; c < components.length; c++) {
    let deps: number[] | undefined;
    const members = components[c];
    for (let m = 0; m < members.length; m++) {
      const refs = edges[members[m]];
      for (let i = 0; i < refs.length; i++) {
        const target = componentOf[refs[i]];
        if (target !== c && listedBy[target] !== c) {
          listedBy[target] = c;
          if (deps === undefined) deps = [target];
          else deps[deps.length] = target;
        }
      }
    }
    dependencies[c] = deps === undefined ? NO_DEPENDENCIES : deps.length > 1 ? ascending(deps, leader) : deps;
  }
  return { components, componentOf, dependencies };
}

/** The dependencies of every component without any (most of a model's types). */
const NO_DEPENDENCIES: readonly number[] = Object.freeze([]);

/**
 * Components in dependency order (dependencies first), visiting components and their
 * dependencies by their first member (lowest id, first name) so the order never depends on
 * traversal accidents.
 */
export function componentOrder({ components, componentOf, dependencies }: Condensed): number[] {
  const visited = new Uint8Array(components.length);
  const ordered: number[] = [];
  const visit = (component: number): void => {
    visited[component] = 1;
    const deps = dependencies[component];
    for (let i = 0; i < deps.length; i++) if (visited[deps[i]] === 0) visit(deps[i]);
    ordered[ordered.length] = component;
  };
  // Node ids ascend in name order, so the nodes that lead a component come in leader order.
  for (let id = 0; id < componentOf.length; id++) {
    const component = componentOf[id];
    if (components[component][0] === id && visited[component] === 0) visit(component);
  }
  return ordered;
}

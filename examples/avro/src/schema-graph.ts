/**
 * The graph of named schemas (who references whom), its strongly connected components and a
 * deterministic dependency order, used to emit linked declarations before their users.
 */
import type { AvroType, NamedSchema } from './model.ts';
import { fullNameKey } from './model.ts';

/** Named types directly referenced by `tpe` (not following into other schemas). */
export function directReferences(tpe: AvroType, out: Set<string>): void {
  switch (tpe.kind) {
    case 'named':
      out.add(fullNameKey(tpe.fullName));
      return;
    case 'array':
      return directReferences(tpe.items, out);
    case 'map':
      return directReferences(tpe.values, out);
    case 'logical':
    case 'annotated':
      return directReferences(tpe.physical, out);
    case 'union':
      for (const branch of tpe.branches) directReferences(branch, out);
      return;
    case 'primitive':
      return;
  }
}

/** name → sorted names of the declared schemas its fields reference. */
export type SchemaGraph = Map<string, string[]>;

/** Build the reference graph over `schemas` (keys sorted). */
export function schemaGraph(schemas: ReadonlyMap<string, NamedSchema>): SchemaGraph {
  const graph: SchemaGraph = new Map();
  for (const key of [...schemas.keys()].sort()) {
    const schema = schemas.get(key) as NamedSchema;
    const refs = new Set<string>();
    if (schema.kind === 'record') for (const field of schema.fields) directReferences(field.type, refs);
    // A loop, not spread and filter: no callback per reference (a native-to-JS call in QuickJS).
    const declared: string[] = [];
    for (const ref of refs) if (schemas.has(ref)) declared.push(ref);
    graph.set(key, declared.sort());
  }
  return graph;
}

/*
 * The algorithms below work on integer ids, typed arrays and plain lists rather than maps and
 * sets keyed by name, and sort names with the native comparator: a big model's graph has
 * thousands of nodes, and in QuickJS a map operation or a comparator call per edge dominated.
 */

/** A graph condensed to its strongly connected components and the edges between them. */
export interface Condensed {
  components: string[][];
  componentOf: Map<string, number>;
  /** For each component, the other components it references, each once. */
  dependencies: number[][];
}

/** Condenses `graph`: its components ({@link stronglyConnectedComponents}) and their edges. */
export function condense(graph: SchemaGraph): Condensed {
  const components = stronglyConnectedComponents(graph);
  const componentOf = new Map<string, number>();
  components.forEach((component, i) => component.forEach((node) => componentOf.set(node, i)));
  // Which component last listed a dependency, so each is listed once per component.
  const listedBy = new Int32Array(components.length).fill(-1);
  const dependencies = components.map((component, i) => {
    const deps: number[] = [];
    for (const node of component) {
      for (const dep of graph.get(node) ?? []) {
        const target = componentOf.get(dep) as number;
        if (target !== i && listedBy[target] !== i) {
          listedBy[target] = i;
          deps.push(target);
        }
      }
    }
    return deps;
  });
  return { components, componentOf, dependencies };
}

/** Tarjan's strongly connected components, each sorted, in completion order. */
export function stronglyConnectedComponents(graph: SchemaGraph): string[][] {
  const names: string[] = [];
  const ids = new Map<string, number>();
  const idOf = (name: string): number => {
    let id = ids.get(name);
    if (id === undefined) {
      id = names.length;
      names.push(name);
      ids.set(name, id);
    }
    return id;
  };
  for (const name of graph.keys()) idOf(name);
  // A reference to a name that is not a key is a node without edges.
  const edges: number[][] = [];
  for (let id = 0; id < names.length; id++) edges.push((graph.get(names[id]) ?? []).map(idOf));
  const count = names.length;
  const index = new Int32Array(count).fill(-1);
  const low = new Int32Array(count);
  const onStack = new Uint8Array(count);
  const stack: number[] = [];
  const components: string[][] = [];
  let next = 0;
  const visit = (node: number): void => {
    index[node] = next;
    low[node] = next;
    next++;
    stack.push(node);
    onStack[node] = 1;
    for (const dep of edges[node]) {
      if (index[dep] < 0) {
        visit(dep);
        if (low[dep] < low[node]) low[node] = low[dep];
      } else if (onStack[dep] === 1 && index[dep] < low[node]) {
        low[node] = index[dep];
      }
    }
    if (low[node] !== index[node]) return;
    const component: string[] = [];
    for (;;) {
      const member = stack.pop() as number;
      onStack[member] = 0;
      component.push(names[member]);
      if (member === node) break;
    }
    components.push(component.sort());
  };
  for (let id = 0; id < count; id++) if (index[id] < 0) visit(id);
  return components;
}

/**
 * Components in dependency order (dependencies first), visiting seeds and dependencies by
 * their first member so the order never depends on traversal accidents.
 */
export function componentOrder(components: readonly string[][], dependencies: readonly (readonly number[])[]): number[] {
  // Rank of each component by its first member (members are unique, so leaders are too).
  const byLeader = new Map<string, number>();
  components.forEach((component, i) => byLeader.set(component[0], i));
  const leaders = [...byLeader.keys()].sort();
  const rank = new Int32Array(components.length);
  leaders.forEach((leader, r) => (rank[byLeader.get(leader) as number] = r));
  const visited = new Uint8Array(components.length);
  const ordered: number[] = [];
  const visit = (component: number): void => {
    if (visited[component] === 1) return;
    visited[component] = 1;
    const deps = dependencies[component];
    for (const dep of deps.length > 1 ? [...deps].sort((a, b) => rank[a] - rank[b]) : deps) visit(dep);
    ordered.push(component);
  };
  for (const leader of leaders) visit(byLeader.get(leader) as number);
  return ordered;
}

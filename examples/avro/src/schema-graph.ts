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
    graph.set(key, [...refs].filter((ref) => schemas.has(ref)).sort());
  }
  return graph;
}

/** A graph condensed to its strongly connected components and the edges between them. */
export interface Condensed {
  components: string[][];
  componentOf: Map<string, number>;
  /** For each component, the other components it references. */
  dependencies: Set<number>[];
}

/** Condenses `graph`: its components ({@link stronglyConnectedComponents}) and their edges. */
export function condense(graph: SchemaGraph): Condensed {
  const components = stronglyConnectedComponents(graph);
  const componentOf = new Map<string, number>();
  components.forEach((component, i) => component.forEach((node) => componentOf.set(node, i)));
  const dependencies = components.map((component, i) => {
    const deps = new Set<number>();
    for (const node of component) for (const dep of graph.get(node) ?? []) if (componentOf.get(dep) !== i) deps.add(componentOf.get(dep) as number);
    return deps;
  });
  return { components, componentOf, dependencies };
}

/** Tarjan's strongly connected components, each sorted, in completion order. */
export function stronglyConnectedComponents(graph: SchemaGraph): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (name: string): void => {
    index.set(name, next);
    low.set(name, next);
    next++;
    stack.push(name);
    onStack.add(name);
    for (const dep of graph.get(name) ?? []) {
      if (!index.has(dep)) {
        visit(dep);
        low.set(name, Math.min(low.get(name) as number, low.get(dep) as number));
      } else if (onStack.has(dep)) {
        low.set(name, Math.min(low.get(name) as number, index.get(dep) as number));
      }
    }
    if (low.get(name) !== index.get(name)) return;
    const component: string[] = [];
    for (;;) {
      const member = stack.pop() as string;
      onStack.delete(member);
      component.push(member);
      if (member === name) break;
    }
    components.push(component.sort());
  };
  for (const name of graph.keys()) if (!index.has(name)) visit(name);
  return components;
}

/**
 * Components in dependency order (dependencies first), visiting seeds and dependencies by
 * their first member so the order never depends on traversal accidents.
 */
export function componentOrder(components: readonly string[][], dependencies: readonly Set<number>[]): number[] {
  const byLeader = (a: number, b: number): number => (components[a][0] < components[b][0] ? -1 : components[a][0] > components[b][0] ? 1 : 0);
  const visited = new Set<number>();
  const ordered: number[] = [];
  const visit = (component: number): void => {
    if (visited.has(component)) return;
    visited.add(component);
    for (const dep of [...dependencies[component]].sort(byLeader)) visit(dep);
    ordered.push(component);
  };
  for (const seed of components.map((_, i) => i).sort(byLeader)) visit(seed);
  return ordered;
}

/**
 * Projection state shared by the type, declaration and protocol projections: the name registry,
 * the declarations index, emitted schemas and roots, and an undo journal so a failed root or
 * message leaves no trace (warn-and-skip keeps only closed, valid artifacts).
 */
import { nameCollision } from './diagnostics.ts';
import type { AvroDiagnostic } from './diagnostics.ts';
import type { AvroProtocol, AvroRoot, Constructor, FullName, NamedSchema, ProjectionModule, ProjectionPackage, TypeDeclaration, TypeExpr } from './model.ts';
import { compareStrings, fullNameKey } from './model.ts';
import { avroNamespace, isValidFullName, upperCamel } from './naming.ts';
import type { AvroOptions } from './options.ts';
import type { EmittedName, ReferenceTarget } from './type-mapping.ts';

/** A registered declaration and the Avro full name it owns. */
export interface DeclarationInfo {
  readonly declaration: TypeDeclaration;
  readonly fullName: FullName;
  /** Declared by a dependency package rather than the generated one. */
  readonly dependency: boolean;
}

interface ActiveSpecialization {
  readonly args: readonly TypeExpr[];
  readonly identity: string;
  readonly complexity: number;
}

/**
 * A write to undo: the map, the key and what it held before. A record rather than a closure: in
 * QuickJS a closure is a function object plus a reference cell per captured variable.
 */
interface Undo {
  readonly map: Map<string, unknown>;
  readonly key: string;
  readonly had: boolean;
  readonly previous: unknown;
}

/** Mutable projection state for one generate request. */
export class Projector {
  readonly options: AvroOptions;
  readonly registry = new Map<string, string>();
  readonly roots = new Map<string, AvroRoot>();
  readonly schemas = new Map<string, NamedSchema>();
  readonly linkedSchemas = new Map<string, NamedSchema>();
  readonly protocols = new Map<string, AvroProtocol>();
  readonly declarations = new Map<string, DeclarationInfo>();
  readonly invalidDeclarations = new Set<string>();
  readonly active = new Map<string, ActiveSpecialization[]>();
  readonly building = new Set<string>();
  /** Reference targets by source (type-mapping.ts), filled after {@link register}. */
  readonly targets = new Map<string, ReferenceTarget>();
  /** Names of generated `Result` schemas by namespace and argument sources (type-mapping.ts). */
  readonly resultNames = new Map<string, EmittedName>();
  /** Names of generated tuple schemas by namespace and identity (type-mapping.ts). */
  readonly tupleNames = new Map<string, EmittedName>();
  /**
   * Namespaces of constructor records that are not their type's full name
   * (`constructor_namespace=lowercase-type`), each to the full name of the type that owns them.
   */
  readonly nestedNamespaces = new Map<string, string>();
  private journal: Undo[] | undefined;

  constructor(options: AvroOptions) {
    this.options = options;
  }

  /**
   * Run `work` so that all its map writes are undone if it throws (the reference clones the
   * whole projector per root; an undo journal gives the same semantics in linear time).
   */
  transaction<T>(work: () => T): T {
    const outer = this.journal;
    const journal: Undo[] = [];
    this.journal = journal;
    try {
      const result = work();
      if (outer) for (let i = 0; i < journal.length; i++) outer.push(journal[i]);
      return result;
    } catch (error) {
      for (let i = journal.length - 1; i >= 0; i--) {
        const { map, key, had, previous } = journal[i];
        if (had) map.set(key, previous);
        else map.delete(key);
      }
      if (!outer) {
        // A throw skips the pops of every frame it unwinds; at the top level nothing is active.
        this.active.clear();
        this.building.clear();
      }
      throw error;
    } finally {
      this.journal = outer;
    }
  }

  private write<V>(map: Map<string, V>, key: string, value: V): void {
    if (this.journal) {
      const had = map.has(key);
      this.journal.push({ map: map as Map<string, unknown>, key, had, previous: had ? map.get(key) : undefined });
    }
    map.set(key, value);
  }

  /** Claim `fullName` for `identity`; a different identity already holding it is AVRO003. */
  claim(fullName: string, identity: string): void {
    const existing = this.registry.get(fullName);
    if (existing === undefined) this.write(this.registry, fullName, identity);
    else if (existing !== identity) throw nameCollision(fullName);
  }

  /** Store a named schema as owned or linked. */
  insert(schema: NamedSchema, linked: boolean): void {
    this.write(linked ? this.linkedSchemas : this.schemas, fullNameKey(schema.fullName), schema);
  }

  /** Whether a schema with this full name was already emitted. */
  containsSchema(name: FullName): boolean {
    return this.containsKey(fullNameKey(name));
  }

  /** {@link containsSchema} by full-name key. */
  containsKey(key: string): boolean {
    return this.schemas.has(key) || this.linkedSchemas.has(key);
  }

  /** Record that the schemas of `namespace` belong to the named type `owner` (see {@link nestedNamespaces}). */
  nest(namespace: string, owner: string): void {
    this.write(this.nestedNamespaces, namespace, owner);
  }

  /** Record a public root. */
  insertRoot(root: AvroRoot): void {
    this.write(this.roots, fullNameKey(root.fullName), root);
  }

  /** Record a module protocol. */
  insertProtocol(protocol: AvroProtocol): void {
    this.write(this.protocols, fullNameKey(protocol.fullName), protocol);
  }

  /** Whether a declaration's schemas belong in separate linked artifacts. */
  isLinked(info: DeclarationInfo): boolean {
    return info.dependency && this.options.dependencies === 'linked';
  }

  /** Linkedness of whatever schema a Morphir source (owner of a tuple or Result) produces. */
  isLinkedSource(source: string): boolean {
    const info = this.declarations.get(source);
    return info !== undefined && this.isLinked(info);
  }

  /** Push an active specialization for recursion checks; returns the pop. */
  enter(source: string, args: readonly TypeExpr[], identity: string, complexity: number): () => void {
    const stack = this.active.get(source) ?? [];
    stack.push({ args, identity, complexity });
    this.active.set(source, stack);
    return () => {
      stack.pop();
      if (stack.length === 0) this.active.delete(source);
    };
  }

  /** Active specializations of `source`, innermost last. */
  activeFor(source: string): readonly ActiveSpecialization[] {
    return this.active.get(source) ?? [];
  }

  /**
   * Index every declaration of the package and its dependencies, reporting AVRO003 for
   * duplicate sources, shared Avro full names and clashing constructor names. Conflicting
   * declarations are quarantined: references to them fail instead of guessing.
   */
  register(pkg: ProjectionPackage): AvroDiagnostic[] {
    const diagnostics: AvroDiagnostic[] = [];
    const candidates: DeclarationInfo[] = [];
    const collect = (packageName: string, modules: readonly ProjectionModule[], dependency: boolean): void => {
      for (let m = 0; m < modules.length; m++) {
        const module = modules[m];
        const namespace = avroNamespace(packageName, module.path);
        for (let t = 0; t < module.types.length; t++) {
          const declaration = module.types[t];
          const fullName = { namespace, name: upperCamel(declaration.name) };
          if (!isValidFullName(fullName)) {
            diagnostics.push({ ...nameCollision(`invalid Avro full name ${fullNameKey(fullName)}`).diagnostic, source: declaration.source });
            this.invalidDeclarations.add(declaration.source);
            continue;
          }
          candidates.push({ declaration, fullName, dependency });
        }
      }
    };
    collect(pkg.packageName, pkg.modules, false);
    for (const dependency of pkg.dependencies) collect(dependency.packageName, dependency.modules, true);
    // Collected module by module, candidates are usually in source order already: then the
    // comparator (a call per pair in QuickJS) never reaches its later keys and the sort is skipped.
    let ordered = true;
    for (let i = 1; i < candidates.length && ordered; i++) ordered = candidates[i - 1].declaration.source < candidates[i].declaration.source;
    if (!ordered) candidates.sort(
      (a, b) =>
        compareStrings(a.declaration.source, b.declaration.source) ||
        compareStrings(fullNameKey(a.fullName), fullNameKey(b.fullName)) ||
        Number(a.dependency) - Number(b.dependency),
    );
    // Sorted by source, declarations of one source are neighbours.
    for (let start = 0, end = 1; start < candidates.length; start = end, end = start + 1) {
      const source = candidates[start].declaration.source;
      while (end < candidates.length && candidates[end].declaration.source === source) end++;
      if (end - start === 1) continue;
      this.invalidDeclarations.add(source);
      for (let i = start; i < end; i++) {
        diagnostics.push({ ...nameCollision(`duplicate Morphir source ${source} at ${fullNameKey(candidates[i].fullName)}`).diagnostic, source });
      }
    }
    for (const [fullName, conflicts] of groupBy(candidates, (c) => fullNameKey(c.fullName))) {
      if (conflicts.length <= 1) continue;
      const sources = [...new Set(conflicts.map((c) => c.declaration.source))].sort(compareStrings);
      if (sources.length <= 1) continue;
      for (const source of sources) {
        this.invalidDeclarations.add(source);
        diagnostics.push({ ...nameCollision(fullName).diagnostic, source });
      }
    }
    for (let i = 0; i < candidates.length; i++) {
      const candidate = candidates[i];
      if (candidate.declaration.kind !== 'custom' || !spellsConstructorTwice(candidate.declaration.constructors)) continue;
      for (const [name, conflicts] of groupBy(candidate.declaration.constructors, (c) => upperCamel(c.name))) {
        if (conflicts.length <= 1) continue;
        this.invalidDeclarations.add(candidate.declaration.source);
        for (const constructor of conflicts) {
          diagnostics.push({ ...nameCollision(`${fullNameKey(candidate.fullName)}.${name}`).diagnostic, source: constructor.source });
        }
      }
    }
    for (let i = 0; i < candidates.length; i++) {
      const candidate = candidates[i];
      const source = candidate.declaration.source;
      if (this.invalidDeclarations.has(source)) continue;
      const key = fullNameKey(candidate.fullName);
      const existing = this.registry.get(key);
      if (existing !== undefined && existing !== source) {
        this.invalidDeclarations.add(source);
        diagnostics.push({ ...nameCollision(key).diagnostic, source });
        continue;
      }
      this.registry.set(key, source);
      this.declarations.set(source, candidate);
    }
    return diagnostics;
  }
}

/**
 * Whether two constructors share an Avro name: pairwise for the usual short list, cheaper in
 * QuickJS than a map per custom type.
 */
function spellsConstructorTwice(constructors: readonly Constructor[]): boolean {
  if (constructors.length > 16) {
    const seen = new Set<string>();
    for (let i = 0; i < constructors.length; i++) {
      const name = upperCamel(constructors[i].name);
      if (seen.has(name)) return true;
      seen.add(name);
    }
    return false;
  }
  for (let i = 1; i < constructors.length; i++) {
    const name = upperCamel(constructors[i].name);
    for (let j = 0; j < i; j++) if (upperCamel(constructors[j].name) === name) return true;
  }
  return false;
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const group = groups.get(k);
    if (group) group.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}

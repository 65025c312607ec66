/**
 * Avro IDL artifacts: a message-free `<Root>Schemas` protocol per public root, one protocol per
 * module in protocol modes, and in `linked` mode one protocol per dependency declaration,
 * imported by relative path.
 */
import { unsafeRecursion, missingLinkedDependency } from './diagnostics.ts';
import { annotations, docComment, DOTTED, HYPHENATED, idlPath, idlType, inlineAnnotations, relativePath, requiresJavaCc, type PropertySpelling } from './idl-syntax.ts';
import { ArtifactList, type ArtifactSink } from './json-syntax.ts';
import type { AvroField, AvroMessage, AvroPackage, AvroRoot, FullName, NamedSchema, Properties } from './model.ts';
import { fullNameKey } from './model.ts';
import { escapeIdlIdentifier } from './naming.ts';
import type { AvroOptions } from './options.ts';
import { carriedByProtocols, isCarried } from './package-check.ts';
import { edgesByName, packageGraph } from './schema-graph.ts';

interface ProtocolFile {
  readonly name: FullName;
  readonly props: Properties;
  readonly doc?: string;
  readonly selected: ReadonlySet<string>;
  readonly imports: ReadonlySet<string>;
  readonly syntheticRoot?: AvroRoot;
  readonly messages: readonly AvroMessage[];
}

const sortedSet = (values: Iterable<string>): Set<string> => new Set([...values].sort());

/** A cycle of two or more declarations cannot be written in IDL order (AVRO005). */
function detectCycle(graph: ReadonlyMap<string, readonly string[]>, selected: ReadonlySet<string>): void {
  const visiting: string[] = [];
  const visited = new Set<string>();
  const visit = (name: string): void => {
    if (visited.has(name)) return;
    const start = visiting.indexOf(name);
    if (start >= 0) {
      const cycle = visiting.slice(start);
      if (cycle.length > 1) throw unsafeRecursion(cycle.join(' -> '));
      return;
    }
    visiting.push(name);
    for (const dep of graph.get(name) ?? []) if (selected.has(dep) && dep !== name) visit(dep);
    visiting.pop();
    visited.add(name);
  };
  for (const name of selected) visit(name);
}

class IdlRenderer {
  private readonly schemas: Map<string, NamedSchema>;
  private readonly owned: Set<string>;
  private readonly linkedNames: Set<string>;
  /** Each schema's full name to the names it references. */
  private readonly graph: ReadonlyMap<string, readonly string[]>;
  private readonly wrapperNames = new Map<string, FullName>();

  constructor(
    private readonly pkg: AvroPackage,
    private readonly linked: boolean,
    private readonly spell: PropertySpelling,
    private readonly sink: ArtifactSink | undefined,
  ) {
    this.schemas = new Map([...pkg.schemas, ...pkg.linkedSchemas]);
    this.owned = new Set(pkg.schemas.keys());
    this.linkedNames = new Set(pkg.linkedSchemas.keys());
    this.graph = edgesByName(packageGraph(pkg));
    // Each root and declaration gets a `<Name>Schemas` wrapper protocol name that no module
    // protocol and no other wrapper uses.
    const sources = new Map<string, FullName>();
    for (const root of pkg.roots) sources.set(fullNameKey(root.fullName), root.fullName);
    for (const schema of this.schemas.values()) sources.set(fullNameKey(schema.fullName), schema.fullName);
    const reserved = new Set(pkg.protocols.map((protocol) => fullNameKey(protocol.fullName)));
    for (const key of [...sources.keys()].sort()) {
      const name = sources.get(key) as FullName;
      let candidate = { namespace: name.namespace, name: `${name.name}Schemas` };
      while (reserved.has(fullNameKey(candidate))) candidate = { namespace: candidate.namespace, name: `${candidate.name}Schemas` };
      reserved.add(fullNameKey(candidate));
      this.wrapperNames.set(key, candidate);
    }
  }

  render(): ArtifactList {
    const list = new ArtifactList(this.sink);
    if (this.linked) {
      for (const name of this.linkedNames) {
        const owned = (this.graph.get(name) ?? []).find((dep) => this.owned.has(dep));
        if (owned) throw unsafeRecursion(`linked declaration ${name} depends on owned declaration ${owned}`);
      }
      detectCycle(this.graph, this.linkedNames);
      for (const schema of this.pkg.linkedSchemas.values()) {
        const key = fullNameKey(schema.fullName);
        const imports = sortedSet((this.graph.get(key) ?? []).filter((dep) => dep !== key && this.linkedNames.has(dep)));
        const name = this.wrapperName(schema.fullName);
        list.add(idlPath(name), this.file({ name, props: {}, selected: new Set([key]), imports, messages: [] }));
      }
    }
    const carried = carriedByProtocols(this.pkg);
    for (const root of this.pkg.roots) {
      if (isCarried(carried, root)) continue;
      const key = fullNameKey(root.fullName);
      const referenced = root.references.map(fullNameKey);
      const selected = sortedSet([...this.selectable(referenced), ...(this.schemas.has(key) ? [key] : [])]);
      const name = this.wrapperName(root.fullName);
      const synthetic = !(root.type.kind === 'named' && fullNameKey(root.type.fullName) === key) || !this.schemas.has(key);
      list.add(
        idlPath(name),
        this.file({ name, props: {}, selected, imports: this.importsOf(referenced), ...(synthetic ? { syntheticRoot: root } : {}), messages: [] }),
      );
    }
    for (const protocol of this.pkg.protocols) {
      const referenced = protocol.references.map(fullNameKey);
      const doc = protocol.props['morphir.doc'];
      list.add(
        idlPath(protocol.fullName),
        this.file({
          name: protocol.fullName,
          props: protocol.props,
          ...(typeof doc === 'string' ? { doc } : {}),
          selected: sortedSet(this.selectable(referenced)),
          imports: this.importsOf(referenced),
          messages: protocol.messages,
        }),
      );
    }
    return list;
  }

  private wrapperName(name: FullName): FullName {
    return this.wrapperNames.get(fullNameKey(name)) as FullName;
  }

  private selectable(referenced: readonly string[]): string[] {
    return referenced.filter((name) => !this.linked || this.owned.has(name));
  }

  private importsOf(referenced: readonly string[]): Set<string> {
    return this.linked ? sortedSet(referenced.filter((name) => this.linkedNames.has(name))) : new Set();
  }

  private file(file: ProtocolFile): string {
    let out = file.messages.some(requiresJavaCc)
      ? '// Avro Tools 1.12.2 requires `idl --useJavaCC` for message annotations with named responses.\n'
      : '';
    out += docComment('', file.doc);
    out += annotations('', file.props, this.spell);
    out += annotations('', { namespace: file.name.namespace }, this.spell);
    out += `protocol ${escapeIdlIdentifier(file.name.name)} {\n`;
    const currentPath = idlPath(file.name);
    for (const imported of file.imports) {
      const schema = this.schemas.get(imported);
      if (!schema) throw missingLinkedDependency(imported);
      out += `  import idl ${JSON.stringify(relativePath(currentPath, idlPath(this.wrapperName(schema.fullName))))};\n`;
    }
    const more = (index: number, total: number): boolean => index + 1 < total || file.syntheticRoot !== undefined || file.messages.length > 0;
    if (file.imports.size > 0 && (file.selected.size > 0 || file.syntheticRoot !== undefined || file.messages.length > 0)) out += '\n';
    const declarations = this.inDependencyOrder(file.selected);
    declarations.forEach((schema, index) => {
      out += this.named(schema);
      if (more(index, declarations.length)) out += '\n';
    });
    if (file.syntheticRoot) {
      const root = file.syntheticRoot;
      out += docComment('  ', root.doc);
      out += annotations('  ', { namespace: root.fullName.namespace }, this.spell);
      out += annotations('  ', { 'morphir.fqname': root.source }, this.spell);
      out += `  record ${escapeIdlIdentifier(root.fullName.name)} {\n    ${idlType(root.type, this.spell)} value;\n  }\n`;
      if (file.messages.length > 0) out += '\n';
    }
    file.messages.forEach((message, index) => {
      out += this.message(message);
      if (index + 1 < file.messages.length) out += '\n';
    });
    return `${out}}\n`;
  }

  private inDependencyOrder(selected: ReadonlySet<string>): NamedSchema[] {
    detectCycle(this.graph, selected);
    const visited = new Set<string>();
    const ordered: NamedSchema[] = [];
    const visit = (name: string): void => {
      if (visited.has(name)) return;
      visited.add(name);
      for (const dep of this.graph.get(name) ?? []) if (dep !== name && selected.has(dep)) visit(dep);
      const schema = this.schemas.get(name);
      if (!schema) throw missingLinkedDependency(name);
      ordered.push(schema);
    };
    for (const name of selected) visit(name);
    return ordered;
  }

  private named(schema: NamedSchema): string {
    let out = docComment('  ', schema.doc);
    out += annotations('  ', { namespace: schema.fullName.namespace }, this.spell);
    out += annotations('  ', schema.props, this.spell);
    const name = escapeIdlIdentifier(schema.fullName.name);
    if (schema.kind === 'enum') return `${out}  enum ${name} { ${schema.symbols.map(escapeIdlIdentifier).join(', ')} }\n`;
    out += `  record ${name} {\n`;
    for (const field of schema.fields) out += `    ${this.field(field)};\n`;
    return `${out}  }\n`;
  }

  private field(field: AvroField): string {
    return `${idlType(field.type, this.spell)} ${inlineAnnotations(field.props, this.spell)}${escapeIdlIdentifier(field.name)}`;
  }

  private message(message: AvroMessage): string {
    const doc = message.props['morphir.doc'];
    let out = docComment('  ', typeof doc === 'string' ? doc : undefined);
    out += annotations('  ', message.props, this.spell);
    const request = message.request.map((field) => this.field(field)).join(', ');
    return `${out}  ${idlType(message.response, this.spell)} ${escapeIdlIdentifier(message.name)}(${request});\n`;
  }
}

/**
 * Render a checked package as Avro IDL artifacts: returned, or handed to `sink` one by one.
 * @throws {AvroError} AVRO005 for mutually recursive declarations, AVRO003 for duplicate paths.
 */
export function renderIdl(pkg: AvroPackage, options: Pick<AvroOptions, 'dependencies' | 'idlPropertyNames'>, sink?: ArtifactSink): ArtifactList {
  return new IdlRenderer(pkg, options.dependencies === 'linked', options.idlPropertyNames === 'hyphenated' ? HYPHENATED : DOTTED, sink).render();
}

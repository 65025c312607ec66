/**
 * Avro JSON artifacts: one `.avsc` per public root, one `.avpr` per module protocol, and in
 * `linked` mode one `.avsc` per dependency declaration, emitted before the roots that use it.
 * In `shared` mode every named type is defined once in its module namespace's `.avsc` (see
 * shared-layout.ts) and referenced by full name everywhere else.
 */
import { ArtifactList, artifactPath, canonicalJson, orderedJson, type Artifact, type ArtifactSink } from './json-syntax.ts';
import { inlineState, isDefined, JsonTypeRenderer, type DefinitionScope, type NameSet } from './json-types.ts';
import type { AvroPackage, AvroProtocol, AvroRoot, JsonValue, NamedSchema } from './model.ts';
import { fullNameKey } from './model.ts';
import type { AvroOptions } from './options.ts';
import { carriedByProtocols, isCarried } from './package-check.ts';
import { componentOrder, condense, packageGraph, type SchemaGraph } from './schema-graph.ts';
import { sharedArtifacts, type SharedDefinition } from './shared-layout.ts';

type JsonObject = { [key: string]: JsonValue };

interface Context {
  readonly pkg: AvroPackage;
  readonly linked: boolean;
  /** Every named schema is its own registry artifact (`dependencies=shared`). */
  readonly shared: boolean;
  readonly schemas: ReadonlyMap<string, NamedSchema>;
  readonly linkedNames: ReadonlySet<string>;
  readonly types: JsonTypeRenderer;
}

/**
 * Registry artifacts, dependencies first: linked schemas, cycles and what they depend on; in
 * shared mode every schema.
 */
function linkedDefinitions(ctx: Context, graph: SchemaGraph): SharedDefinition[] {
  const condensed = condense(graph.edges);
  const { components, dependencies } = condensed;
  const early = new Uint8Array(components.length);
  const include = (c: number): void => {
    early[c] = 1;
    const deps = dependencies[c];
    for (let i = 0; i < deps.length; i++) if (early[deps[i]] === 0) include(deps[i]);
  };
  // Shared: every component is a registry definition, nothing to follow.
  if (ctx.shared) early.fill(1);
  for (let c = 0; c < components.length; c++) {
    const members = components[c];
    if (early[c] === 0 && (members.length > 1 || ctx.linkedNames.has(graph.names[members[0]]))) include(c);
  }
  const out: SharedDefinition[] = [];
  const order = componentOrder(condensed);
  for (let i = 0; i < order.length; i++) {
    const members = components[order[i]];
    if (early[order[i]] === 1) out.push({ leader: graph.schemas[members[0]], members });
  }
  return out;
}

/** A definition's JSON: its schema with references by full name, or a cycle defined inside its leader. */
function renderDefinition(ctx: Context, graph: SchemaGraph, { leader, members }: SharedDefinition): JsonValue {
  if (members.length === 1) return ctx.types.namedReferenceOnly(leader);
  const names = new Set<string>();
  for (let i = 0; i < members.length; i++) names.add(graph.names[members[i]]);
  return ctx.types.namedInline(leader.fullName, inlineState(), { kind: 'selected', names });
}

function renderRoot(ctx: Context, root: AvroRoot, predefined: NameSet): string {
  const target = root.type.kind === 'named' ? fullNameKey(root.type.fullName) : undefined;
  const external = target !== undefined && ctx.linked && predefined.has(target);
  const nested = target !== undefined && target !== fullNameKey(root.fullName) && !predefined.has(target);
  const scope: DefinitionScope = ctx.linked ? { kind: 'owned' } : { kind: 'all' };
  const state = inlineState(ctx.linked ? predefined : undefined);
  let value: JsonValue =
    root.type.kind === 'named' && (ctx.linked || ctx.schemas.has(target as string))
      ? ctx.types.namedInline(root.type.fullName, state, scope)
      : ctx.types.typeInline(root.type, state, scope);
  if (!external) value = rootDocument(root, value, nested);
  return orderedJson(topKeysSorted(value));
}

/**
 * `value` with its own keys sorted: the renderer builds every object below in key order (see
 * json-types.ts), and only rootDocument adds keys out of order, at the top. The same text as
 * canonicalJson without its walk of the whole tree, which in self-contained files repeats every
 * type's closure.
 */
function topKeysSorted(value: JsonValue): JsonValue {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const keys = Object.keys(value).sort();
  const sorted: JsonObject = {};
  for (let i = 0; i < keys.length; i++) sorted[keys[i]] = value[keys[i]];
  return sorted;
}

/**
 * The root document, a valid Avro 1.11 schema in every case (a schema object's `type` must be a
 * type name, so the reference's `{"type": {…record…}}` and `{"type": [union]}` are not written):
 * - a record, enum, array, map or primitive carries the root's `morphir.fqname` (and doc) itself;
 * - an alias to another named schema (`type alias SkuPair = Pair Sku`, `type alias Lookup =
 *   Result String String`) is that schema, with the alias's Avro full name in `aliases` and its
 *   Morphir FQName in `morphir.alias`, so readers can resolve either name;
 * - an alias to a union (`Maybe a`) is the bare union: an Avro union carries no properties.
 */
function rootDocument(root: AvroRoot, value: JsonValue, nested: boolean): JsonValue {
  if (Array.isArray(value)) return value;
  const isObject = value !== null && typeof value === 'object';
  if (nested && isObject) {
    const named: JsonObject = { ...value, aliases: [fullNameKey(root.fullName)], 'morphir.alias': root.source };
    if (named.doc === undefined && root.doc !== undefined) named.doc = root.doc;
    return named;
  }
  const base: JsonObject = isObject ? { ...value } : { type: value };
  base['morphir.fqname'] = root.source;
  if (root.doc !== undefined) base.doc = root.doc;
  return base;
}

function renderProtocol(ctx: Context, protocol: AvroProtocol, predefined: NameSet): string {
  const object: JsonObject = { ...protocol.props };
  const messages: JsonObject = {};
  for (const message of protocol.messages) {
    messages[message.name] = {
      ...message.props,
      errors: [],
      request: message.request.map((field) => ctx.types.fieldReferenceOnly(field)),
      response: ctx.types.typeReferenceOnly(message.response),
    };
  }
  object.messages = messages;
  object.namespace = protocol.fullName.namespace;
  object.protocol = protocol.fullName.name;
  const scope: DefinitionScope = ctx.linked ? { kind: 'owned' } : { kind: 'all' };
  const state = inlineState(predefined);
  const types: JsonValue[] = [];
  for (const name of protocol.references) {
    const key = fullNameKey(name);
    if (isDefined(state, key) || !ctx.schemas.has(key)) continue;
    types.push(ctx.types.namedInline(name, state, scope));
  }
  object.types = types;
  return canonicalJson(object);
}

/**
 * Render a checked package as Avro JSON artifacts: returned, or handed to `sink` one by one as
 * each is rendered (then the list returned is empty, and only one file is held at a time).
 * @throws {AvroError} AVRO003 when two artifacts would share a path.
 */
export function renderJson(pkg: AvroPackage, options: Pick<AvroOptions, 'dependencies'>, sink?: ArtifactSink): ArtifactList {
  const schemas = pkg.linkedSchemas.size === 0 ? pkg.schemas : new Map<string, NamedSchema>([...pkg.schemas, ...pkg.linkedSchemas]);
  const linkedNames = new Set(pkg.linkedSchemas.keys());
  const shared = options.dependencies === 'shared';
  const ctx: Context = { pkg, linked: shared || options.dependencies === 'linked', shared, schemas, linkedNames, types: new JsonTypeRenderer(schemas, linkedNames) };
  const list = new ArtifactList(sink);
  // Names defined by the registry artifacts; in shared mode that is every schema.
  let predefined: NameSet = new Set<string>();
  if (ctx.linked) {
    const graph = packageGraph(pkg);
    const definitions = linkedDefinitions(ctx, graph);
    if (ctx.shared) {
      for (const artifact of sharedArtifacts(definitions, ctx.schemas, graph, pkg.nestedNamespaces)) {
        const values: JsonValue[] = [];
        for (let i = 0; i < artifact.definitions.length; i++) values.push(renderDefinition(ctx, graph, artifact.definitions[i]));
        list.add(artifact.path, orderedJson(values));
      }
      predefined = ctx.schemas;
    } else {
      const names = new Set<string>();
      for (const definition of definitions) {
        list.add(artifactPath(definition.leader.fullName, 'avsc'), orderedJson(renderDefinition(ctx, graph, definition)));
        for (let i = 0; i < definition.members.length; i++) names.add(graph.names[definition.members[i]]);
      }
      predefined = names;
    }
  }
  const carried = carriedByProtocols(pkg);
  for (const root of pkg.roots) {
    // Shared: a root that is a named type is already defined in its namespace's file.
    if (ctx.shared && root.type.kind === 'named' && fullNameKey(root.type.fullName) === fullNameKey(root.fullName)) continue;
    const path = artifactPath(root.fullName, 'avsc');
    if (isCarried(carried, root) || list.has(path)) continue;
    list.add(path, renderRoot(ctx, root, predefined));
  }
  for (const protocol of pkg.protocols) list.add(artifactPath(protocol.fullName, 'avpr'), renderProtocol(ctx, protocol, predefined));
  if (ctx.shared) list.add(LOAD_ORDER_PATH, loadOrder(list.order));
  return list;
}

/** Where the shared layout writes its load order, beside the top namespace folders. */
export const LOAD_ORDER_PATH = 'load-order.json';

/**
 * The shared layout's index: its `.avsc` files in the order they must be parsed, so that a
 * reader (Java's `Schema.Parser`, Python, avsc) needs nothing but the output to load it. The
 * files reference each other's types by full name, and a parser refuses a name it has not
 * seen defined yet: in name order `shop/billing.avsc` would come before the `shop/catalog.avsc`
 * whose types it uses.
 */
function loadOrder(paths: readonly string[]): string {
  const schemas: string[] = [];
  for (let i = 0; i < paths.length; i++) if (paths[i].endsWith('.avsc')) schemas.push(paths[i]);
  return canonicalJson({
    about:
      'The .avsc files of this output in load order: parse them in this order with one parser (Java: one org.apache.avro.Schema.Parser; ' +
      'Python: avro.schema.make_avsc_object with one avro.name.Names; avsc: one registry), and every named type is defined before its first use. ' +
      'A .avpr file references these types by full name.',
    schemas,
  });
}

/**
 * Test helpers (Node only, never imported by the generator): an IR v3 builder that mirrors the
 * reference backend's in-memory test mothers, and avsc checks for every artifact kind (self-contained
 * and linked).
 */
import avsc from 'avsc';
import * as assert from 'uvu/assert';
import type { Artifact } from './json-syntax.ts';
import { LOAD_ORDER_PATH } from './render-json.ts';

type Json = unknown;

/** Legacy words of a canonical name: `as-of` → ['as','of'], `API-response` → ['a','p','i','response']. */
export function words(canonical: string): string[] {
  return canonical.split('-').flatMap((segment) =>
    segment !== segment.toLowerCase() ? segment.toLowerCase().split('') : [segment],
  );
}

const path = (p: string): string[][] => p.split('/').map(words);

/** v3 FQName JSON of a canonical `package:module#local`. */
export function fq(source: string): Json {
  const [pkg, rest] = source.split(':');
  const [mod, local] = rest.split('#');
  return [path(pkg), path(mod), words(local)];
}

/** v3 type expressions. */
export const t = {
  ref: (source: string, ...args: Json[]): Json => ['Reference', {}, fq(source), args],
  var: (name: string): Json => ['Variable', {}, words(name)],
  tuple: (...elements: Json[]): Json => ['Tuple', {}, elements],
  unit: (): Json => ['Unit', {}],
  fn: (input: Json, output: Json): Json => ['Function', {}, input, output],
  record: (fields: [string, Json][], encoding: 'object' | 'pair' = 'object'): Json => [
    'Record',
    {},
    fields.map(([name, tpe]) => (encoding === 'object' ? { name: words(name), tpe } : [words(name), tpe])),
  ],
  extensible: (variable: string, fields: [string, Json][]): Json => [
    'ExtensibleRecord',
    {},
    words(variable),
    fields.map(([name, tpe]) => ({ name: words(name), tpe })),
  ],
  string: (): Json => t.ref('morphir/SDK:string#string'),
  int: (): Json => t.ref('morphir/SDK:basics#int'),
  bool: (): Json => t.ref('morphir/SDK:basics#bool'),
};

/** A type entry of a module definition. */
export interface TypeSpec {
  name: string;
  doc?: string;
  access?: 'Public' | 'Private';
  params?: string[];
  alias?: Json;
  /** Constructors: name → arguments `[name, type]`. */
  custom?: [string, [string, Json][]][];
  constructorsAccess?: 'Public' | 'Private';
}

/** A value entry of a module definition. */
export interface ValueSpec {
  name: string;
  doc?: string;
  access?: 'Public' | 'Private';
  inputs?: [string, Json][];
  output: Json;
}

/** A module of a package definition. */
export interface ModuleSpec {
  path: string;
  access?: 'Public' | 'Private';
  doc?: string;
  types?: TypeSpec[];
  values?: ValueSpec[];
}

function typeEntry(spec: TypeSpec): Json {
  const params = (spec.params ?? []).map(words);
  const definition =
    spec.alias !== undefined
      ? ['TypeAliasDefinition', params, spec.alias]
      : [
          'CustomTypeDefinition',
          params,
          {
            access: spec.constructorsAccess ?? 'Public',
            value: (spec.custom ?? []).map(([name, args]) => [words(name), args.map(([argName, tpe]) => [words(argName), tpe])]),
          },
        ];
  return [words(spec.name), { access: spec.access ?? 'Public', value: { doc: spec.doc ?? '', value: definition } }];
}

function valueEntry(spec: ValueSpec): Json {
  const inputTypes = (spec.inputs ?? []).map(([name, tpe]) => [words(name), tpe, tpe]);
  return [
    words(spec.name),
    { access: spec.access ?? 'Public', value: { doc: spec.doc ?? '', value: { inputTypes, outputType: spec.output, body: ['Unit', spec.output] } } },
  ];
}

/** The module definition list of a package. */
export function moduleDefinitions(modules: ModuleSpec[]): Json {
  return modules.map((m) => [
    path(m.path),
    {
      access: m.access ?? 'Public',
      value: { types: (m.types ?? []).map(typeEntry), values: (m.values ?? []).map(valueEntry), ...(m.doc ? { doc: m.doc } : {}) },
    },
  ]);
}

/** A dependency package specification: modules of `{types, values}` specs. */
export function dependency(packageName: string, modules: { path: string; types: TypeSpec[] }[]): Json {
  return [
    path(packageName),
    {
      modules: modules.map((m) => [
        path(m.path),
        {
          types: m.types.map((spec) => {
            const params = (spec.params ?? []).map(words);
            const value =
              spec.alias !== undefined
                ? ['TypeAliasSpecification', params, spec.alias]
                : spec.custom !== undefined
                  ? ['CustomTypeSpecification', params, spec.custom.map(([n, args]) => [words(n), args.map(([a, tp]) => [words(a), tp])])]
                  : ['OpaqueTypeSpecification', params];
            return [words(spec.name), { doc: spec.doc ?? '', value }];
          }),
          values: [],
        },
      ]),
    },
  ];
}

/** A v3 Library distribution. */
export function library(packageName: string, modules: ModuleSpec[], dependencies: Json[] = []): Json {
  return { formatVersion: 3, distribution: ['Library', path(packageName), dependencies, { modules: moduleDefinitions(modules) }] };
}

/**
 * The one rewrite our IDL gets before avsc 5.7.9 reads it, for two gaps in avsc's IDL reader:
 * - it predates the `decimal(p, s)` and `uuid` shorthands of Avro 1.12 IDL: spell them as the
 *   equivalent annotated types;
 * - it attaches a message's annotations to the response type, and a union cannot carry
 *   annotations ("union annotations are not supported"), while Avro's own JavaCC grammar reads
 *   them as message properties: drop the annotations of a message whose response is a union.
 * Everything else is checked as written.
 */
function forAvscIdl(text: string): string {
  const shorthands = text
    .replace(/decimal\((\d+), (\d+)\)/g, '@logicalType("decimal") @precision($1) @scale($2) bytes')
    .replace(/(^|[ <,{(])uuid(?=[ >,}])/gm, '$1@logicalType("uuid") string');
  const out: string[] = [];
  let annotations: string[] = [];
  for (const line of shorthands.split('\n')) {
    if (/^  @/.test(line)) {
      annotations.push(line);
      continue;
    }
    const unionMessage = /^  union \{.*\) ?;$/.test(line);
    if (!unionMessage) out.push(...annotations);
    annotations = [];
    out.push(line);
  }
  out.push(...annotations);
  return out.join('\n');
}

/** Parse Avro IDL text with avsc after the one documented rewrite ({@link forAvscIdl}); imports are resolved from `files`. */
export async function readIdlWithAvsc(path: string, files: ReadonlyMap<string, string>): Promise<Record<string, unknown>> {
  const protocol = await new Promise<unknown>((resolve, reject) => {
    avsc.assembleProtocol(
      `/${path}`,
      {
        importHook: (file: string, _kind: string, cb: (err: Error | null, text?: string) => void) => {
          const text = files.get(file.replace(/^\//, ''));
          if (text === undefined) cb(new Error(`${path}: import of ${file} has no artifact`));
          else cb(null, forAvscIdl(text));
        },
      } as never,
      (err: Error | null, result: unknown) => (err ? reject(err) : resolve(result)),
    );
  });
  // avsc's IDL reader attaches message annotations to the response type (Avro Tools needs
  // `--useJavaCC` for the same construct); move them off before building the service.
  const messages = (protocol as { messages?: Record<string, { response: unknown }> }).messages ?? {};
  for (const message of Object.values(messages)) {
    const response = message.response as Record<string, unknown> | string;
    if (typeof response !== 'object' || response === null || Array.isArray(response)) continue;
    for (const key of Object.keys(response)) if (key.startsWith('morphir.')) delete response[key];
    if (Object.keys(response).length === 1 && typeof response.type === 'string') message.response = response.type;
  }
  return protocol as Record<string, unknown>;
}

/**
 * Parse every artifact with avsc (.avsc schemas as they are, .avpr protocols, .avdl IDL with
 * imports) and return, per artifact, the Avro types it defines: the schema, or every named type
 * and message request/response of a protocol.
 */
export async function avscTypesOf(artifacts: readonly Artifact[]): Promise<{ path: string; types: avsc.Type[] }[]> {
  const byPath = new Map(artifacts.map((a) => [a.path, a.content]));
  const out: { path: string; types: avsc.Type[] }[] = [];
  for (const artifact of artifacts) {
    assert.ok(artifact.content.endsWith('\n') && !artifact.content.endsWith('\n\n'), `${artifact.path}: one trailing newline`);
    if (artifact.path.endsWith('.avsc')) {
      // The document itself must be an Avro schema: no unwrapping of `{"type": {…}}` here.
      out.push({ path: artifact.path, types: [avsc.Type.forSchema(JSON.parse(artifact.content) as avsc.Schema)] });
    } else if (artifact.path.endsWith('.avpr') || artifact.path.endsWith('.avdl')) {
      const protocol = artifact.path.endsWith('.avpr') ? JSON.parse(artifact.content) : await readIdlWithAvsc(artifact.path, byPath);
      const service = avsc.Service.forProtocol(protocol as never);
      const types = [...service.types, ...service.messages.flatMap((m) => [m.requestType, m.responseType])];
      out.push({ path: artifact.path, types });
    } else {
      assert.unreachable(`unexpected artifact ${artifact.path}`);
    }
  }
  return out;
}

/** Assert that every artifact parses with avsc (.avsc schemas, .avpr protocols, .avdl IDL with imports). */
export async function assertParsesWithAvsc(artifacts: readonly Artifact[]): Promise<void> {
  await avscTypesOf(artifacts);
}

/** Full names a JSON artifact defines and refers to (our renderer always writes full names). */
function namesOf(value: Json, defined: Set<string>, referenced: Set<string>, key = ''): void {
  if (typeof value === 'string') {
    if (key === 'type' || key === 'items' || key === 'values' || key === '' || key === 'response') referenced.add(value);
    return;
  }
  if (Array.isArray(value)) {
    for (const v of value) namesOf(v, defined, referenced, key === 'type' || key === 'types' || key === '' || key === 'response' ? '' : key);
    return;
  }
  if (value === null || typeof value !== 'object') return;
  const object = value as Record<string, Json>;
  if ((object.type === 'record' || object.type === 'enum' || object.type === 'error') && typeof object.name === 'string') {
    defined.add(typeof object.namespace === 'string' && object.namespace !== '' ? `${object.namespace}.${object.name}` : object.name);
  }
  for (const [k, v] of Object.entries(object)) if (k !== 'name' && k !== 'namespace' && k !== 'aliases') namesOf(v, defined, referenced, k);
}

/**
 * Parse `dependencies: linked` JSON artifacts as a schema registry would: each artifact with the
 * artifacts defining the names it refers to loaded first (those form a DAG; cycles share a file).
 */
export function avscLinkedTypesOf(artifacts: readonly Artifact[]): { path: string; types: avsc.Type[] }[] {
  const docs = artifacts.map((a) => JSON.parse(a.content) as Json);
  const definedBy = new Map<string, number>();
  const needs = docs.map((doc, i) => {
    const defined = new Set<string>();
    const referenced = new Set<string>();
    namesOf(doc, defined, referenced);
    for (const name of defined) if (!definedBy.has(name)) definedBy.set(name, i);
    return { defined, referenced };
  });
  const load = (i: number, registry: Record<string, avsc.Type>, loaded: Set<number>): avsc.Type[] => {
    for (const name of needs[i].referenced) {
      const from = definedBy.get(name);
      if (from !== undefined && from !== i && !needs[i].defined.has(name) && !loaded.has(from)) {
        loaded.add(from);
        load(from, registry, loaded);
      }
    }
    if (artifacts[i].path.endsWith('.avpr')) {
      const service = avsc.Service.forProtocol(docs[i] as never, { registry } as never);
      return [...service.types, ...service.messages.flatMap((m) => [m.requestType, m.responseType])];
    }
    return [avsc.Type.forSchema(docs[i] as avsc.Schema, { registry })];
  };
  return artifacts.map((a, i) => ({ path: a.path, types: load(i, {}, new Set([i])) }));
}

/**
 * Load `dependencies=shared` artifacts into one avsc registry in the order they came, as a
 * consumer would: every named type must be defined exactly once and before any use. Returns the
 * registry's full names.
 */
export function loadSharedWithAvsc(artifacts: readonly Pick<Artifact, 'path' | 'content'>[]): string[] {
  const registry: Record<string, unknown> = {};
  for (const artifact of artifacts) {
    if (artifact.path === LOAD_ORDER_PATH) continue;
    assert.ok(artifact.content.endsWith('\n') && !artifact.content.endsWith('\n\n'), `${artifact.path}: one trailing newline`);
    const value = JSON.parse(artifact.content) as { type?: unknown };
    try {
      if (artifact.path.endsWith('.avpr')) avsc.Service.forProtocol(value as never, { registry } as never);
      else avsc.Type.forSchema((typeof value === 'object' && value !== null && !Array.isArray(value) && typeof value.type !== 'string' ? value.type : value) as avsc.Schema, { registry } as never);
    } catch (error) {
      assert.unreachable(`${artifact.path} does not load into the shared registry: ${(error as Error).message}`);
    }
  }
  return Object.keys(registry).filter((name) => name.includes('.'));
}

/**
 * The `dependencies=shared` artifacts in the order their index (`load-order.json`) gives: the
 * `.avsc` files it lists, then the other files as they came. Asserts that the index is there and
 * lists every `.avsc` once.
 */
export function byLoadOrder<A extends Pick<Artifact, 'path' | 'content'>>(artifacts: readonly A[]): A[] {
  const index = artifacts.find((a) => a.path === LOAD_ORDER_PATH);
  assert.ok(index, `no ${LOAD_ORDER_PATH} among ${artifacts.length} artifacts`);
  const { schemas } = JSON.parse(index.content) as { schemas: string[] };
  const byPath = new Map(artifacts.map((a) => [a.path, a]));
  const listed = schemas.map((path) => {
    const artifact = byPath.get(path);
    assert.ok(artifact, `${LOAD_ORDER_PATH} lists ${path}, which is not an artifact`);
    return artifact;
  });
  assert.is(new Set(schemas).size, schemas.length, `${LOAD_ORDER_PATH} lists a file twice`);
  assert.equal(schemas.slice().sort(), artifacts.filter((a) => a.path.endsWith('.avsc')).map((a) => a.path).sort(), `${LOAD_ORDER_PATH} lists every .avsc`);
  return [...listed, ...artifacts.filter((a) => !a.path.endsWith('.avsc') && a !== index)];
}

/**
 * Converts a Morphir IR v3 Library distribution (morphir-elm's JSON) into IR v4 (draft), for
 * round-trip tests and for trying v4 tooling on Elm models (`fixtures/ir/to-v4.ts` is the
 * command-line wrapper). Types and value signatures are converted; value bodies are not (they
 * become a `Hole`), since nothing that reads signatures needs them.
 *
 * Two spellings, both found in real v4 documents:
 * - `wrapped`: `{"access": "Public", "value": …}`, object-wrapper types (`{"Reference": {"fqname"}}`),
 *   `formatVersion: "4.0.0"` — what the Rust reference serializer writes;
 * - `compact`: `{"Public": …}`, compact types (`"morphir/sdk:string#string"`, `["Tuple", a, b]`),
 *   `formatVersion: 4` — what the Morphir website examples use.
 */
type Json = unknown;
type JsonObject = Record<string, Json>;

/** Which v4 spelling to write. */
export type V4Style = 'wrapped' | 'compact';

const asArray = (value: Json): Json[] => (Array.isArray(value) ? value : []);

/** v4 name string: words joined by `-`, runs of single letters grouped as an initialism `(a-p-i)`. */
export function v4NameString(words: Json): string {
  const out: string[] = [];
  let run: string[] = [];
  const flush = (): void => {
    if (run.length === 1) out.push(run[0]);
    else if (run.length > 1) out.push(`(${run.join('-')})`);
    run = [];
  };
  for (const word of asArray(words).map(String)) {
    if (word.length === 1 && /[a-z]/.test(word)) run.push(word);
    else {
      flush();
      out.push(word);
    }
  }
  flush();
  return out.join('-');
}

const pathString = (path: Json): string => asArray(path).map(v4NameString).join('/');
const fqString = (fq: Json): string => {
  const [pkg, mod, local] = asArray(fq);
  return `${pathString(pkg)}:${pathString(mod)}#${v4NameString(local)}`;
};

function fieldsObject(fields: Json, style: V4Style): JsonObject {
  const out: JsonObject = {};
  for (const field of asArray(fields)) {
    const [name, tpe] = Array.isArray(field) ? field : [(field as JsonObject).name, (field as JsonObject).tpe];
    out[v4NameString(name)] = convertType(tpe, style);
  }
  return out;
}

/** Convert one v3 type expression `[tag, attributes, …]`. */
export function convertType(tpe: Json, style: V4Style): Json {
  const node = asArray(tpe);
  const compact = style === 'compact';
  switch (node[0]) {
    case 'Variable':
      return compact ? v4NameString(node[2]) : { Variable: { name: v4NameString(node[2]) } };
    case 'Reference': {
      const args = asArray(node[3]).map((a) => convertType(a, style));
      const fqname = fqString(node[2]);
      if (compact) return args.length === 0 ? fqname : [fqname, ...args];
      return { Reference: args.length === 0 ? { fqname } : { fqname, args } };
    }
    case 'Tuple': {
      const elements = asArray(node[2]).map((e) => convertType(e, style));
      return compact ? ['Tuple', ...elements] : { Tuple: { elements } };
    }
    case 'Record':
      return { Record: compact ? fieldsObject(node[2], style) : { fields: fieldsObject(node[2], style) } };
    case 'ExtensibleRecord':
      return { ExtensibleRecord: { variable: v4NameString(node[2]), fields: fieldsObject(node[3], style) } };
    case 'Function':
      return compact ? ['Function', {}, convertType(node[2], style), convertType(node[3], style)] : { Function: { arg: convertType(node[2], style), result: convertType(node[3], style) } };
    case 'Unit':
      return { Unit: {} };
    default:
      throw new TypeError(`not a v3 type expression: ${JSON.stringify(tpe)?.slice(0, 80)}`);
  }
}

function accessControlled(access: Json, value: Json, style: V4Style): JsonObject {
  const a = access === 'Private' ? 'Private' : 'Public';
  return style === 'compact' ? { [a]: value } : { access: a, value };
}

/** `{doc, value}` (Documented) or the bare value; the doc is flattened beside the v4 tag. */
function documented(value: Json): { doc?: Json; value: Json } {
  const v = value as JsonObject;
  return v && typeof v === 'object' && !Array.isArray(v) && 'value' in v && !('inputTypes' in v) ? { doc: v.doc, value: v.value } : { value };
}

function withDoc(doc: Json, body: JsonObject): JsonObject {
  return typeof doc === 'string' && doc !== '' ? { doc, ...body } : body;
}

function constructorsObject(ctors: Json, style: V4Style): JsonObject {
  const out: JsonObject = {};
  for (const [name, args] of asArray(ctors) as [Json, Json][]) {
    const argsObject: JsonObject = {};
    for (const [argName, tpe] of asArray(args) as [Json, Json][]) argsObject[v4NameString(argName)] = convertType(tpe, style);
    out[v4NameString(name)] = argsObject;
  }
  return out;
}

function typeDefinition(def: Json, style: V4Style): JsonObject {
  const [tag, params, rest] = asArray(def);
  const typeParams = asArray(params).map(v4NameString);
  switch (tag) {
    case 'TypeAliasDefinition':
    case 'TypeAliasSpecification':
      return { [tag as string]: { typeParams, typeExp: convertType(rest, style) } };
    case 'CustomTypeDefinition': {
      const ctors = rest as JsonObject;
      return { CustomTypeDefinition: { typeParams, accessControlledConstructors: accessControlled(ctors.access, constructorsObject(ctors.value, style), style) } };
    }
    case 'CustomTypeSpecification':
      return { CustomTypeSpecification: { typeParams, constructors: constructorsObject(rest, style) } };
    default:
      return { [String(tag)]: { typeParams } };
  }
}

function valueDefinition(raw: Json, style: V4Style, specification: boolean): JsonObject {
  const { doc, value } = documented(raw);
  const def = value as JsonObject;
  if (specification) {
    const inputs: JsonObject = {};
    for (const [name, tpe] of asArray(def.inputs) as [Json, Json][]) inputs[v4NameString(name)] = convertType(tpe, style);
    return withDoc(doc, { inputs, output: convertType(def.output, style) });
  }
  const inputTypes: JsonObject = {};
  for (const [name, , tpe] of asArray(def.inputTypes) as [Json, Json, Json][]) inputTypes[v4NameString(name)] = convertType(tpe, style);
  const body = { Hole: { attributes: {}, message: 'converted from IR v3 without its body' } };
  return withDoc(doc, { ExpressionBody: { inputTypes, outputType: convertType(def.outputType, style), body } });
}

function moduleContent(def: JsonObject, style: V4Style, specification: boolean): JsonObject {
  const types: JsonObject = {};
  for (const [name, entry] of asArray(def.types) as [Json, JsonObject][]) {
    if (specification) {
      const { doc, value } = documented(entry);
      types[v4NameString(name)] = withDoc(doc, typeDefinition(value, style));
    } else {
      const { doc, value } = documented(entry.value);
      types[v4NameString(name)] = accessControlled(entry.access, withDoc(doc, typeDefinition(value, style)), style);
    }
  }
  const values: JsonObject = {};
  for (const [name, entry] of asArray(def.values) as [Json, JsonObject][]) {
    values[v4NameString(name)] = specification ? valueDefinition(entry, style, true) : accessControlled(entry.access, valueDefinition(entry.value, style, false), style);
  }
  return withDoc(def.doc, { types, values });
}

/**
 * Convert a v3 Library distribution to v4 in the given spelling.
 * @throws {TypeError} when `ir` is not a v3 Library distribution.
 */
export function convertV3ToV4(ir: Json, style: V4Style = 'wrapped'): JsonObject {
  const dist = asArray((ir as JsonObject | null)?.distribution);
  if (dist[0] !== 'Library') throw new TypeError('convertV3ToV4 needs a v3 Library distribution ["Library", package, dependencies, definition]');
  const dependencies: JsonObject = {};
  for (const [pkg, spec] of asArray(dist[2]) as [Json, JsonObject][]) {
    const modules: JsonObject = {};
    for (const [path, def] of asArray(spec.modules) as [Json, JsonObject][]) modules[pathString(path)] = moduleContent(def, style, true);
    dependencies[pathString(pkg)] = { modules };
  }
  const modules: JsonObject = {};
  for (const [path, entry] of asArray((dist[3] as JsonObject).modules) as [Json, JsonObject][]) {
    modules[pathString(path)] = accessControlled(entry.access, moduleContent(entry.value as JsonObject, style, false), style);
  }
  return {
    formatVersion: style === 'compact' ? 4 : '4.0.0',
    distribution: { Library: { packageName: pathString(dist[1]), dependencies, def: { modules } } },
  };
}

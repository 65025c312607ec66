/**
 * The GraphQL-from-IR workload (issue 32): what a newcomer writes for a GraphQL backend. Every
 * type of the model becomes a GraphQL type through graphql-js's type system (records → object
 * types, enums → enum types, custom types with payloads → unions of one object type per
 * constructor), every value a query field; the schema is validated and printed, a query document
 * per field is generated, parsed and validated against it, both are formatted with prettier's
 * standalone build and zipped with fflate. Pure: the extension and the native callgrind script
 * (bench/callgrind.bench.ts) both call {@link graphqlFromIr}.
 */
import { zipSync, strToU8 } from 'fflate';
import {
  GraphQLBoolean, GraphQLEnumType, GraphQLFloat, GraphQLInt, GraphQLList, GraphQLNonNull, GraphQLObjectType, GraphQLScalarType, GraphQLSchema, GraphQLString, GraphQLUnionType,
  buildASTSchema, isEnumType, isScalarType, parse, print, printSchema, validate, validateSchema,
  type GraphQLFieldConfigArgumentMap, type GraphQLFieldConfigMap, type GraphQLOutputType, type GraphQLInputType, type GraphQLNamedType,
} from 'graphql';
import * as prettier from 'prettier/standalone';
import * as prettierGraphql from 'prettier/plugins/graphql';
import { camel, pascal, readModel, referenceName, type IrType, type IrTypeDef } from './ir-model.ts';

/** What the backend writes. */
export interface GraphqlOutput {
  schema: string;
  operations: string;
  zip: Uint8Array;
  typeCount: number;
}

const SCALARS: Record<string, GraphQLScalarType> = {
  'basics.Int': GraphQLInt,
  'basics.Float': GraphQLFloat,
  'basics.Bool': GraphQLBoolean,
  'string.String': GraphQLString,
  'char.Char': GraphQLString,
};

const custom = (name: string, description: string): GraphQLScalarType => new GraphQLScalarType({ name, description });

/**
 * Builds the schema, its printed SDL and the operations; throws when graphql-js finds the schema
 * invalid. `stage` hears the name of each stage as it starts (the extension reports them as progress).
 */
export async function graphqlFromIr(ir: unknown, stage: (name: string) => void = () => undefined): Promise<GraphqlOutput> {
  stage('reading the IR');
  const model = readModel(ir);
  const defs = new Map<string, IrTypeDef>();
  const gqlName = (module: string, local: string): string => `${pascal(module.split('.').slice(-1))}${local}`;
  for (const t of model.types) defs.set(`${t.module.map((m) => camel(m)).join('.')}.${pascal(t.name)}`, t);
  const named = new Map<string, GraphQLNamedType>();
  const extra = { Json: custom('Json', 'Any JSON value (tuples, dictionaries, generic parameters)'), Decimal: custom('Decimal', 'A decimal number as text'), LocalDate: custom('LocalDate', 'An ISO 8601 date') };

  const outputOf = (t: IrType): GraphQLOutputType => {
    const ref = referenceName(t);
    if (!ref) return extra.Json;
    const key = `${ref.module}.${ref.local}`;
    if (ref.pkg === 'morphir.sDK') {
      if (SCALARS[key]) return SCALARS[key]!;
      if (key === 'decimal.Decimal') return extra.Decimal;
      if (key === 'localDate.LocalDate') return extra.LocalDate;
      if ((key === 'list.List' || key === 'set.Set') && ref.args[0]) return new GraphQLList(required(ref.args[0]));
      if (key === 'maybe.Maybe' && ref.args[0]) return outputOf(ref.args[0]);
      return extra.Json;
    }
    const def = defs.get(key);
    return def ? typeFor(def) : extra.Json;
  };
  const required = (t: IrType): GraphQLOutputType => {
    const ref = referenceName(t);
    const inner = outputOf(t);
    return ref?.module === 'maybe' ? inner : new GraphQLNonNull(inner as never);
  };
  const inputOf = (t: IrType): GraphQLInputType => {
    const out = outputOf(t);
    return isScalarType(out) || isEnumType(out) ? out : extra.Json;
  };

  function typeFor(def: IrTypeDef): GraphQLOutputType {
    const name = gqlName(def.module.map((m) => camel(m)).join('.'), pascal(def.name));
    const seen = named.get(name);
    if (seen) return seen as GraphQLOutputType;
    const description = def.doc.trim() || undefined;
    if (def.kind === 'alias') return outputOf(def.target!);
    if (def.kind === 'record') {
      const object: GraphQLObjectType = new GraphQLObjectType({
        name,
        description,
        fields: () => Object.fromEntries(def.fields.map((f) => [camel(f.name), { type: required(f.tpe) }])) as GraphQLFieldConfigMap<unknown, unknown>,
      });
      named.set(name, object);
      return object;
    }
    if (def.constructors.every((c) => c.args.length === 0)) {
      const values = Object.fromEntries(def.constructors.map((c) => [c.name.map((w) => w.toUpperCase()).join('_'), { value: pascal(c.name) }]));
      const enumType = new GraphQLEnumType({ name, description, values });
      named.set(name, enumType);
      return enumType;
    }
    const members = def.constructors.map(
      (c) =>
        new GraphQLObjectType({
          name: `${name}${pascal(c.name)}`,
          fields: () => {
            const fields: GraphQLFieldConfigMap<unknown, unknown> = { tag: { type: new GraphQLNonNull(GraphQLString) } };
            for (const [arg, t] of c.args) fields[camel(arg)] = { type: required(t) };
            return fields;
          },
        }),
    );
    const union = new GraphQLUnionType({ name, description, types: members });
    named.set(name, union);
    return union;
  }

  stage('building the GraphQL schema');
  for (const def of model.types) typeFor(def);
  const queryFields: GraphQLFieldConfigMap<unknown, unknown> = {};
  for (const v of model.values) {
    const args: GraphQLFieldConfigArgumentMap = {};
    for (const [arg, t] of v.inputs) args[camel(arg)] = { type: new GraphQLNonNull(inputOf(t)) };
    queryFields[`${camel(v.module[v.module.length - 1]!)}${pascal(v.name)}`] = { type: required(v.output), args, description: v.doc.trim() || undefined };
  }
  if (Object.keys(queryFields).length === 0) queryFields.ping = { type: GraphQLString };
  const schema = new GraphQLSchema({ query: new GraphQLObjectType({ name: 'Query', fields: queryFields }), types: [...named.values(), ...Object.values(extra)] });
  const problems = validateSchema(schema);
  if (problems.length > 0) throw new TypeError(`invalid GraphQL schema: ${problems[0]!.message}`);

  stage('printing and re-parsing the schema');
  const sdl = printSchema(schema);
  // Round trip: the printed SDL must build the same schema again.
  const rebuilt = buildASTSchema(parse(sdl));
  const operations = Object.entries(schema.getQueryType()!.getFields()).map(([field, def]) => {
    const vars = def.args.map((a) => `$${a.name}: ${a.type.toString()}`).join(', ');
    const call = def.args.map((a) => `${a.name}: $${a.name}`).join(', ');
    return `query ${pascal([field])}${vars ? `(${vars})` : ''} { ${field}${call ? `(${call})` : ''}${selection(def.type as GraphQLOutputType, 2)} }`;
  });
  stage('validating the operations');
  const document = parse(operations.join('\n'));
  const errors = validate(rebuilt, document);
  if (errors.length > 0) throw new TypeError(`generated operations do not validate: ${errors[0]!.message}`);
  stage('formatting with prettier');
  const [schemaText, operationsText] = await Promise.all([
    prettier.format(sdl, { parser: 'graphql', plugins: [prettierGraphql] }),
    prettier.format(print(document), { parser: 'graphql', plugins: [prettierGraphql] }),
  ]);
  stage('zipping');
  const zip = zipSync({ 'schema.graphql': strToU8(schemaText), 'operations.graphql': strToU8(operationsText) }, { level: 6, mtime: new Date('2026-01-01T00:00:00Z') });
  return { schema: schemaText, operations: operationsText, zip, typeCount: named.size };
}

/** A selection set for `type`, `depth` levels of objects deep (unions select `__typename`). */
function selection(type: GraphQLOutputType, depth: number): string {
  let t: GraphQLOutputType = type;
  while ('ofType' in t) t = t.ofType as GraphQLOutputType;
  if (t instanceof GraphQLUnionType) return ' { __typename }';
  if (!(t instanceof GraphQLObjectType)) return '';
  const parts = Object.entries(t.getFields())
    .map(([name, f]) => {
      if (isLeaf(f.type)) return name;
      return depth > 0 ? `${name}${selection(f.type, depth - 1)}` : '';
    })
    .filter(Boolean);
  return parts.length === 0 ? ' { __typename }' : ` { ${parts.join(' ')} }`;
}

function isLeaf(type: GraphQLOutputType): boolean {
  let t: GraphQLOutputType = type;
  while ('ofType' in t) t = t.ofType as GraphQLOutputType;
  return isScalarType(t) || isEnumType(t);
}

/**
 * The Morphir → Avro type mapping: SDK primitives, collections, logical types, `type_mappings`
 * overrides, tuples and `Result`, and references to declared types (with generic
 * specialization and recursion checks).
 */
import { missingLinkedDependency, nameCollision, unboundTypeParameter, unsafeRecursion, unsupportedType } from './diagnostics.ts';
import { canonicalType, digest12, digest8, tupleIdentity, typeApplicationDigest, typeComplexity } from './digest.ts';
import { mayHoldAnonymousRecord, projectAnonymousRecord } from './anonymous-records.ts';
import { projectAliasSchema, projectCustom, substitute } from './declarations.ts';
import type { AvroPrimitive, AvroType, FullName, Properties, TypeDeclaration, TypeExpr } from './model.ts';
import { fullNameKey, NO_PROPERTIES } from './model.ts';
import { fullNameFromSource, isValidFullName, upperCamel } from './naming.ts';
import type { TypeMapping } from './options.ts';
import type { DeclarationInfo, Projector } from './projector.ts';
import { SDK, SDK_PREFIX } from './sdk.ts';

/*
 * Types without arguments are shared constants rather than an object per use: projected types
 * are never mutated, and a big model uses the same few thousands of times over.
 */
const PRIMITIVES: Readonly<Record<AvroPrimitive, AvroType>> = {
  null: { kind: 'primitive', name: 'null' },
  boolean: { kind: 'primitive', name: 'boolean' },
  int: { kind: 'primitive', name: 'int' },
  long: { kind: 'primitive', name: 'long' },
  float: { kind: 'primitive', name: 'float' },
  double: { kind: 'primitive', name: 'double' },
  bytes: { kind: 'primitive', name: 'bytes' },
  string: { kind: 'primitive', name: 'string' },
};
const primitive = (name: AvroPrimitive): AvroType => PRIMITIVES[name];
const CHAR: AvroType = { kind: 'annotated', physical: primitive('string'), props: { 'morphir.type': 'Char' } };
const SET_PROPERTIES: Properties = { 'morphir.collection-kind': 'set' };

/** Build a full name, rejecting identifiers Avro cannot carry (AVRO003). */
export function checkedFullName(namespace: string, name: string): FullName {
  const fullName = { namespace, name };
  if (!isValidFullName(fullName)) throw nameCollision(`invalid Avro full name ${namespace}.${name}`);
  return fullName;
}

/** A union whose branches are non-empty, not nested and distinct by category (AVRO001 otherwise). */
export function union(branches: readonly AvroType[]): AvroType {
  if (branches.length === 0) throw unsupportedType('Avro unions cannot be empty');
  // A list, not a Set: unions are short, most are `Maybe`'s two branches.
  const keys: string[] = [];
  for (const branch of branches) {
    const key = unionBranchKey(branch);
    if (keys.includes(key)) throw unsupportedType(`duplicate Avro union branch: ${key}`);
    keys.push(key);
  }
  return { kind: 'union', branches };
}

function unionBranchKey(branch: AvroType): string {
  switch (branch.kind) {
    case 'primitive':
      return branch.name;
    case 'array':
    case 'map':
      return branch.kind;
    case 'union':
      throw unsupportedType('Avro unions cannot directly contain another union');
    case 'named':
      return `named:${fullNameKey(branch.fullName)}`;
    case 'logical':
    case 'annotated':
      return unionBranchKey(branch.physical);
  }
}

/**
 * Project a type expression in the context of a schema namespace and the Morphir source owning
 * it; `hint` is the name an anonymous record here derives from its position (anonymous-records.ts).
 */
export function projectType(p: Projector, namespace: string, owner: string, tpe: TypeExpr, hint?: string): AvroType {
  // Most common first: a switch compares the cases in order.
  switch (tpe.kind) {
    case 'reference':
      return projectReference(p, namespace, owner, tpe.source, tpe.args, hint);
    case 'record':
      return projectAnonymousRecord(p, namespace, owner, hint, tpe.fields);
    case 'tuple':
      return projectTuple(p, namespace, owner, tpe.elements, hint);
    case 'unit':
      return primitive('null');
    case 'variable':
      throw unboundTypeParameter(`${tpe.name} at ${owner}`);
    case 'extensible':
    case 'function':
      throw unsupportedType(`${owner}: ${canonicalType(tpe)}`);
  }
}

type LogicalType = Extract<AvroType, { kind: 'logical' }>;

const logicalType = (physical: AvroPrimitive, name: string, props: Properties = NO_PROPERTIES): LogicalType => ({
  kind: 'logical',
  physical: primitive(physical),
  logicalType: name,
  props,
});
const DATE = logicalType('int', 'date');
const TIME = logicalType('long', 'time-micros');
const TIMESTAMP = logicalType('long', 'timestamp-micros');
const UUID = logicalType('string', 'uuid');

/** A logical type, or only its physical type when logical types are off. */
function logical(p: Projector, type: LogicalType): AvroType {
  return p.options.logicalTypes ? type : type.physical;
}

/** The Avro type of a `type_mappings` override; carries the source FQName as `morphir.fqname`. */
export function mappedType(p: Projector, source: string, mapping: TypeMapping): AvroType {
  const props: Record<string, number | string> = { 'morphir.fqname': source };
  if (mapping.logicalType === undefined) return { kind: 'annotated', physical: primitive(mapping.type), props };
  if (mapping.logicalType === 'decimal') {
    props.precision = mapping.precision ?? p.options.decimalPrecision;
    props.scale = mapping.scale ?? p.options.decimalScale;
  }
  return { kind: 'logical', physical: primitive(mapping.type), logicalType: mapping.logicalType, props };
}

/** The SDK type a canonical source names: one map lookup instead of a comparison per type. */
const SDK_TYPES = new Map<string, keyof typeof SDK>(Object.entries(SDK).map(([type, source]) => [source, type as keyof typeof SDK]));

/**
 * What a reference to one source resolves to before its arguments matter: looked up once per
 * source and projector (the declarations are fixed once registered), so a reference costs one
 * map look-up instead of five, with its full-name key and `named` type made once.
 */
export interface ReferenceTarget {
  readonly invalid: boolean;
  readonly mapping: TypeMapping | undefined;
  readonly sdk: keyof typeof SDK | undefined;
  readonly info: DeclarationInfo | undefined;
  /** The full-name key of `info`'s schema. */
  readonly key: string;
  /** The type of a reference without arguments when `info` declares a named schema without parameters. */
  readonly named: AvroType | undefined;
  /** The type of a reference without arguments to an SDK scalar (`String`, `Int`, `LocalDate`, …). */
  readonly scalar: AvroType | undefined;
  /** An SDK source: one without a mapping below is unsupported (AVRO001). */
  readonly inSdk: boolean;
}

/** The Avro type of an SDK scalar type (a reference without arguments), for the projector's options. */
function sdkScalar(p: Projector, sdk: keyof typeof SDK | undefined): AvroType | undefined {
  switch (sdk) {
    case 'bool': return primitive('boolean');
    case 'int': return primitive('long');
    case 'float': return primitive('double');
    case 'string': return primitive('string');
    case 'char': return CHAR;
    case 'localDate': return logical(p, DATE);
    case 'localTime': return logical(p, TIME);
    case 'instant':
    case 'dateTime': return logical(p, TIMESTAMP);
    case 'uuid': return logical(p, UUID);
    case 'decimal': return logical(p, logicalType('bytes', 'decimal', { precision: p.options.decimalPrecision, scale: p.options.decimalScale }));
    default: return undefined;
  }
}

function referenceTarget(p: Projector, source: string): ReferenceTarget {
  let target = p.targets.get(source);
  if (target === undefined) {
    const info = p.declarations.get(source);
    const named = info && info.declaration.params.length === 0 && isNamedDeclaration(p, info.declaration);
    const sdk = SDK_TYPES.get(source);
    target = {
      invalid: p.invalidDeclarations.has(source),
      mapping: p.options.typeMappings.get(source),
      sdk,
      info,
      key: info ? fullNameKey(info.fullName) : '',
      named: named ? { kind: 'named', fullName: info.fullName } : undefined,
      scalar: sdkScalar(p, sdk),
      inSdk: source.startsWith(SDK_PREFIX),
    };
    p.targets.set(source, target);
  }
  return target;
}

function projectReference(p: Projector, namespace: string, owner: string, source: string, args: readonly TypeExpr[], hint: string | undefined): AvroType {
  const target = referenceTarget(p, source);
  if (target.invalid) throw nameCollision(`reference to conflicting Morphir declaration ${source}`);
  const mapping = target.mapping;
  if (mapping) return mappedType(p, source, mapping);
  const arity = args.length;
  if (arity === 0 && target.scalar !== undefined) return target.scalar;
  // Collections pass the position's name through to an anonymous record they hold.
  if (target.sdk !== undefined) switch (target.sdk) {
    case 'maybe': if (arity === 1) return union([primitive('null'), projectType(p, namespace, owner, args[0], hint)]); break;
    case 'list': if (arity === 1) return { kind: 'array', items: projectType(p, namespace, owner, args[0], hint), props: NO_PROPERTIES }; break;
    case 'set': if (arity === 1) return { kind: 'array', items: projectType(p, namespace, owner, args[0], hint), props: SET_PROPERTIES }; break;
    case 'dict':
      if (arity === 2) {
        if (!dictKeyIsString(p, args[0])) throw unsupportedType(`Dict key ${canonicalType(args[0])}`);
        return { kind: 'map', values: projectType(p, namespace, owner, args[1], hint), props: NO_PROPERTIES };
      }
      break;
    case 'result': if (arity === 2) return projectResult(p, namespace, owner, args[0], args[1]); break;
  }
  if (target.inSdk) throw unsupportedType(source);
  return projectDeclaredReference(p, namespace, source, args, target);
}

/** Whether a Dict key type is a string; `resolving` holds the aliases being expanded (made at the first one). */
function dictKeyIsString(p: Projector, tpe: TypeExpr, resolving?: Set<string>): boolean {
  if (tpe.kind !== 'reference') return false;
  const mapping = p.options.typeMappings.get(tpe.source);
  if (mapping) return mapping.type === 'string';
  if (tpe.source === SDK.string && tpe.args.length === 0) return true;
  if (p.options.aliases !== 'inline') return false;
  const identity = canonicalType(tpe);
  if (resolving?.has(identity)) return false;
  const declaration = p.declarations.get(tpe.source)?.declaration;
  if (!declaration || declaration.kind !== 'alias' || declaration.params.length !== tpe.args.length || declaration.value.kind === 'record') {
    return false;
  }
  const active = resolving ?? new Set<string>();
  active.add(identity);
  const compatible = dictKeyIsString(p, substitute(declaration.value, bindings(declaration.params, tpe.args)), active);
  active.delete(identity);
  return compatible;
}

/** Map type parameter names to the arguments of an application. */
export function bindings(params: readonly string[], args: readonly TypeExpr[]): Map<string, TypeExpr> {
  return new Map(params.map((param, i) => [param, args[i]]));
}

function sameArgs(left: readonly TypeExpr[], right: readonly TypeExpr[]): boolean {
  return left.length === right.length && left.every((arg, i) => canonicalType(arg) === canonicalType(right[i]));
}

function projectDeclaredReference(p: Projector, namespace: string, source: string, args: readonly TypeExpr[], target: ReferenceTarget): AvroType {
  const info = target.info;
  if (!info) {
    throw p.options.dependencies === 'linked' ? missingLinkedDependency(source) : unsupportedType(source);
  }
  const declaration = info.declaration;
  if (declaration.params.length !== args.length) throw unsupportedType(source);
  // Most references name a declaration without parameters whose schema is already emitted:
  // the path below would only find it emitted (or active, and named) and answer the same.
  if (args.length === 0 && target.named !== undefined && p.containsKey(target.key)) return target.named;
  const substitutions = bindings(declaration.params, args);
  const fullName = args.length === 0 ? info.fullName : specializedName(p, info, args);
  const aliasValue = declaration.kind === 'alias' ? substitute(declaration.value, substitutions) : undefined;
  const isNamed =
    aliasValue?.kind === 'record' || (aliasValue !== undefined && p.options.aliases === 'wrapper-record') || declaration.kind === 'custom';
  const linked = p.isLinked(info);
  const complexity = args.reduce((sum, arg) => sum + typeComplexity(arg), 0);
  const active = p.activeFor(source);
  if (active.length > 0) {
    if (isNamed && active.some((s) => sameArgs(s.args, args))) return { kind: 'named', fullName };
    if (complexity >= active[active.length - 1].complexity) throw unsafeRecursion(source);
  }
  const leave = p.enter(source, args, args.map(canonicalType).join(','), complexity);
  try {
    if (declaration.kind === 'alias' && aliasValue !== undefined) {
      if (isNamed) {
        projectAliasSchema(p, source, fullName, aliasValue, declaration.doc, linked);
        return { kind: 'named', fullName };
      }
      return projectType(p, namespace, source, aliasValue, `${info.fullName.name}Value`);
    }
    if (declaration.kind === 'custom') {
      projectCustom(p, source, fullName, declaration.constructors, substitutions, declaration.doc, linked);
      return { kind: 'named', fullName };
    }
    throw unsupportedType(source);
  } finally {
    leave();
  }
}

/** Whether a declaration without parameters projects to a named schema (see projectDeclaredReference). */
function isNamedDeclaration(p: Projector, declaration: TypeDeclaration): boolean {
  if (declaration.kind === 'alias') return declaration.value.kind === 'record' || p.options.aliases === 'wrapper-record';
  return declaration.kind === 'custom';
}

function specializedName(p: Projector, info: DeclarationInfo, args: readonly TypeExpr[]): FullName {
  const readable = info.fullName.name + args.map((arg) => typeSuffix(p, arg)).join('');
  const fullName = checkedFullName(info.fullName.namespace, `${readable}_${typeApplicationDigest(info.declaration.source, args)}`);
  p.claim(fullNameKey(fullName), `${info.declaration.source}<${args.map(canonicalType).join(',')}>`);
  return fullName;
}

const SUFFIXES: Record<string, string> = {
  [SDK.bool]: 'Bool', [SDK.int]: 'Int', [SDK.float]: 'Float', [SDK.string]: 'String', [SDK.char]: 'Char',
};

/** Readable part of a generated name for one type argument (`String`, `ListCustomer`, `Type<hex>`). */
export function typeSuffix(p: Projector, tpe: TypeExpr): string {
  if (tpe.kind === 'reference') {
    const base =
      SUFFIXES[tpe.source] ??
      p.declarations.get(tpe.source)?.fullName.name ??
      fullNameFromSource(tpe.source)?.name ??
      upperCamel(tpe.source);
    return base + tpe.args.map((arg) => typeSuffix(p, arg)).join('');
  }
  if (tpe.kind === 'variable') return upperCamel(tpe.name);
  return `Type${digest8(canonicalType(tpe))}`;
}

/** A generated schema's name, its registry key and claim, and the `named` type referring to it. */
export interface EmittedName {
  readonly key: string;
  readonly identity: string;
  readonly named: AvroType;
}

/** Whether `name`'s schema is still claimed and emitted: a failed root undoes both. */
const stillEmitted = (p: Projector, name: EmittedName): boolean => p.registry.get(name.key) === name.identity && p.containsKey(name.key);

const isPlainReference = (tpe: TypeExpr): tpe is Extract<TypeExpr, { kind: 'reference' }> => tpe.kind === 'reference' && tpe.args.length === 0;

function projectResult(p: Projector, namespace: string, owner: string, error: TypeExpr, value: TypeExpr): AvroType {
  // Most Results take two types without arguments (`Result String Int`), and a model uses the
  // same few many times: their name is kept by namespace and the two sources (length-prefixed,
  // so no two triples share a key), and while its schema stands a use costs one look-up instead
  // of the suffixes, digest, identity and constructors spelled again.
  const pairKey = isPlainReference(error) && isPlainReference(value)
    ? `${namespace.length}:${namespace}${error.source.length}:${error.source}${value.source}`
    : undefined;
  const known = pairKey === undefined ? undefined : p.resultNames.get(pairKey);
  if (known !== undefined && stillEmitted(p, known)) return known.named;
  const name = `Result${typeSuffix(p, error)}${typeSuffix(p, value)}_${typeApplicationDigest(SDK.result, [error, value])}`;
  const fullName = checkedFullName(namespace, name);
  const key = fullNameKey(fullName);
  const identity = `${SDK.result}<${canonicalType(error)};${canonicalType(value)}>`;
  p.claim(key, identity);
  const constructors = [
    { source: 'morphir/SDK:result#err', name: 'err', args: [{ name: 'error', tpe: error }] },
    { source: 'morphir/SDK:result#ok', name: 'ok', args: [{ name: 'value', tpe: value }] },
  ];
  projectCustom(p, SDK.result, fullName, constructors, new Map(), undefined, p.isLinkedSource(owner));
  const named: AvroType = { kind: 'named', fullName };
  if (pairKey !== undefined) p.resultNames.set(pairKey, { key, identity, named });
  return named;
}

function projectTuple(p: Projector, namespace: string, owner: string, elements: readonly TypeExpr[], hint: string | undefined): AvroType {
  const projected: AvroType[] = [];
  for (let i = 0; i < elements.length; i++) {
    const element = elements[i];
    projected[i] = projectType(p, namespace, owner, element, hint !== undefined && mayHoldAnonymousRecord(element) ? `${hint}Item${i + 1}` : undefined);
  }
  const identity = tupleIdentity(projected);
  // A model writes the same few tuples many times: the name is kept by namespace and identity
  // (length-prefixed, so no two pairs share a key) and reused while its schema stands.
  const cacheKey = `${namespace.length}:${namespace}${identity}`;
  const known = p.tupleNames.get(cacheKey);
  if (known !== undefined && stillEmitted(p, known)) return known.named;
  const fullName = checkedFullName(namespace, `Tuple_${digest12(identity)}`);
  const key = fullNameKey(fullName);
  // The identity is a byte string, so the registry's string comparison is the byte comparison.
  const claimed = `tuple:${identity}`;
  p.claim(key, claimed);
  if (!p.containsKey(key)) {
    p.insert(
      {
        kind: 'record',
        fullName,
        fields: projected.map((type, i) => ({ name: `item${i + 1}`, type, props: NO_PROPERTIES })),
        props: { 'morphir.type': 'Tuple' },
      },
      p.isLinkedSource(owner),
    );
  }
  const named: AvroType = { kind: 'named', fullName };
  p.tupleNames.set(cacheKey, { key, identity: claimed, named });
  return named;
}

/**
 * Projection of declarations into named schemas: public roots, record aliases (and wrapper
 * records), enums, and payload custom types as `T { value: union { T.CtorA, … } }`.
 */
import { AvroError, nameCollision, unboundTypeParameter, unsupportedType, type AvroDiagnostic } from './diagnostics.ts';
import type { AvroField, AvroType, Constructor, FullName, NamedType, ProjectionModule, TypeDeclaration, TypeExpr } from './model.ts';
import { fullNameKey, NO_PROPERTIES, sortByKey } from './model.ts';
import { avroNamespace, lowerCamel, upperCamel } from './naming.ts';
import { mayHoldAnonymousRecord, memberHint } from './anonymous-records.ts';
import type { Projector } from './projector.ts';
import { checkedFullName, mappedType, projectType, union } from './type-mapping.ts';

/** Replace type variables by their bound arguments. */
export function substitute(tpe: TypeExpr, substitutions: ReadonlyMap<string, TypeExpr>): TypeExpr {
  if (substitutions.size === 0) return tpe;
  const fields = (list: readonly NamedType[]): NamedType[] => list.map((f) => ({ name: f.name, tpe: substitute(f.tpe, substitutions) }));
  switch (tpe.kind) {
    case 'variable':
      return substitutions.get(tpe.name) ?? tpe;
    case 'reference':
      return { kind: 'reference', source: tpe.source, args: tpe.args.map((a) => substitute(a, substitutions)) };
    case 'tuple':
      return { kind: 'tuple', elements: tpe.elements.map((e) => substitute(e, substitutions)) };
    case 'record':
      return { kind: 'record', fields: fields(tpe.fields) };
    case 'extensible':
      return { kind: 'extensible', variable: tpe.variable, fields: fields(tpe.fields) };
    case 'function':
      return { kind: 'function', input: substitute(tpe.input, substitutions), output: substitute(tpe.output, substitutions) };
    case 'unit':
      return tpe;
  }
}

function checkUniqueFields(fields: readonly AvroField[]): void {
  // Pairwise for the usual handful of fields: cheaper in QuickJS than building a Set.
  if (fields.length <= 16) {
    for (let i = 1; i < fields.length; i++) for (let j = 0; j < i; j++) if (fields[j].name === fields[i].name) throw nameCollision(fields[i].name);
    return;
  }
  const seen = new Set<string>();
  for (const field of fields) {
    if (seen.has(field.name)) throw nameCollision(field.name);
    seen.add(field.name);
  }
}

/** Project fields in source order, not yet checked for unique names. */
function projectFieldList(p: Projector, namespace: string, owner: string, fields: readonly NamedType[], hintPrefix: string | undefined): AvroField[] {
  const projected: AvroField[] = [];
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i];
    projected[i] = {
      name: lowerCamel(f.name),
      type: projectType(p, namespace, owner, f.tpe, mayHoldAnonymousRecord(f.tpe) ? memberHint(hintPrefix, f.name) : undefined),
      props: NO_PROPERTIES,
    };
  }
  return projected;
}

/**
 * Project fields in source order (request parameters keep the signature's order). `hintPrefix`
 * names anonymous records in the fields (`<Prefix><Field>`, see anonymous-records.ts).
 */
export function projectFieldsInOrder(p: Projector, namespace: string, owner: string, fields: readonly NamedType[], hintPrefix?: string): AvroField[] {
  const projected = projectFieldList(p, namespace, owner, fields, hintPrefix);
  checkUniqueFields(projected);
  return projected;
}

/**
 * Project record fields sorted by Avro field name. Fields in strictly increasing order (most
 * records) are unique and need no sort; otherwise a sorted copy shows a duplicate as neighbours,
 * and only then does the source-order check run, to name the same field as it always did.
 */
export function projectFieldsSorted(p: Projector, namespace: string, owner: string, fields: readonly NamedType[], hintPrefix?: string): AvroField[] {
  const projected = projectFieldList(p, namespace, owner, fields, hintPrefix);
  let ordered = true;
  for (let i = 1; i < projected.length && ordered; i++) ordered = projected[i - 1].name < projected[i].name;
  if (ordered) return projected;
  const sorted = sortByKey(projected.slice(), 'name');
  for (let i = 1; i < sorted.length; i++) if (sorted[i - 1].name === sorted[i].name) checkUniqueFields(projected);
  return sorted;
}

const projectFields = projectFieldsSorted;

/** Emit the record schema of a record alias, or the wrapper record `{ value }` of another alias. */
export function projectAliasSchema(
  p: Projector,
  source: string,
  fullName: FullName,
  value: TypeExpr,
  doc: string | undefined,
  linked: boolean,
): void {
  const key = fullNameKey(fullName);
  if (p.containsKey(key) || p.building.has(key)) return;
  p.building.add(key);
  const fields =
    value.kind === 'record'
      ? projectFields(p, fullName.namespace, source, value.fields, fullName.name)
      : [{ name: 'value', type: projectType(p, fullName.namespace, source, value, `${fullName.name}Value`), props: NO_PROPERTIES }];
  p.insert({ kind: 'record', fullName, fields, ...(doc !== undefined ? { doc } : {}), props: { 'morphir.fqname': source } }, linked);
  p.building.delete(key);
}

/** Emit an enum (all constructors nullary) or a payload record with one record per constructor. */
/**
 * The namespace of a custom type's constructor records: the type's full name (the reference's
 * mapping), or with `constructor_namespace=lowercase-type` the type's name in lower case, which
 * Java's SpecificCompiler turns into a package that no generated class shares its name with.
 * Recorded as nested under the type, so the shared layout keeps the records in its module's file.
 */
function constructorNamespace(p: Projector, fullName: FullName, key: string): string {
  if (p.options.constructorNamespace === 'type') return key;
  const lower = fullName.name.toLowerCase();
  const namespace = fullName.namespace === '' ? lower : `${fullName.namespace}.${lower}`;
  p.nest(namespace, key);
  return namespace;
}

export function projectCustom(
  p: Projector,
  source: string,
  fullName: FullName,
  constructors: readonly Constructor[],
  substitutions: ReadonlyMap<string, TypeExpr>,
  doc: string | undefined,
  linked: boolean,
): void {
  const key = fullNameKey(fullName);
  if (p.containsKey(key) || p.building.has(key)) return;
  p.building.add(key);
  const docPart = doc !== undefined ? { doc } : {};
  // Each constructor's Avro name spelled once, in loops: QuickJS calls a callback per element
  // and the sort's comparator per pair.
  const names: string[] = [];
  let nullary = true;
  for (let i = 0; i < constructors.length; i++) {
    names[i] = upperCamel(constructors[i].name);
    if (constructors[i].args.length > 0) nullary = false;
  }
  if (constructors.length > 0 && nullary) {
    p.insert({ kind: 'enum', fullName, symbols: names, ...docPart, props: { 'morphir.fqname': source } }, linked);
    p.building.delete(key);
    return;
  }
  if (constructors.length === 0) throw unsupportedType(source);
  const sorted = sortByKey(constructors.map((constructor, i) => ({ constructor, name: names[i] })), 'name');
  const branches: AvroType[] = [];
  // Claim every constructor's name before any argument is projected, so a name an anonymous
  // record derives (`<Ctor><Arg>`) never takes a later constructor's name.
  const constructorNames: FullName[] = [];
  const namespace = constructorNamespace(p, fullName, key);
  for (let i = 0; i < sorted.length; i++) {
    const constructorName = checkedFullName(namespace, sorted[i].name);
    p.claim(fullNameKey(constructorName), `${sorted[i].constructor.source}:${key}`);
    constructorNames[i] = constructorName;
  }
  for (let i = 0; i < sorted.length; i++) {
    const constructor = sorted[i].constructor;
    const constructorName = constructorNames[i];
    const args = substitutions.size === 0 ? constructor.args : constructor.args.map((a) => ({ name: a.name, tpe: substitute(a.tpe, substitutions) }));
    const fields = projectFields(p, constructorName.namespace, source, args, constructorName.name);
    p.insert({ kind: 'record', fullName: constructorName, fields, props: { 'morphir.fqname': constructor.source } }, linked);
    branches.push({ kind: 'named', fullName: constructorName });
  }
  p.insert(
    { kind: 'record', fullName, fields: [{ name: 'value', type: union(branches), props: NO_PROPERTIES }], ...docPart, props: { 'morphir.fqname': source } },
    linked,
  );
  p.building.delete(key);
}

function projectRoot(p: Projector, namespace: string, declaration: TypeDeclaration): void {
  // The name registered for it (one object, its key already spelled), as every projected one is.
  const fullName = p.declarations.get(declaration.source)?.fullName ?? checkedFullName(namespace, upperCamel(declaration.name));
  const doc = declaration.doc;
  const root = (type: AvroType): void => p.insertRoot({ source: declaration.source, fullName, type, ...(doc !== undefined ? { doc } : {}), references: [] });
  const mapping = p.options.typeMappings.get(declaration.source);
  if (mapping) return root(mappedType(p, declaration.source, mapping));
  if (declaration.kind !== 'opaque' && declaration.params.length > 0) {
    throw unboundTypeParameter(`${declaration.params[0]} at ${declaration.source}`);
  }
  switch (declaration.kind) {
    case 'alias':
      if (declaration.value.kind === 'record' || p.options.aliases === 'wrapper-record') {
        projectAliasSchema(p, declaration.source, fullName, declaration.value, doc, false);
        return root({ kind: 'named', fullName });
      }
      return root(projectType(p, fullName.namespace, declaration.source, declaration.value, `${fullName.name}Value`));
    case 'custom':
      projectCustom(p, declaration.source, fullName, declaration.constructors, new Map(), doc, false);
      return root({ kind: 'named', fullName });
    case 'opaque':
      throw unsupportedType(declaration.source);
  }
}

/**
 * Called before each type declaration is projected: how many were done, of how many, and the
 * one that comes now. A backend reports progress and checks for cancellation here; what it
 * throws ends the projection.
 */
export type TypeStep = (done: number, total: number, source: string) => void;

/**
 * Project every public declaration of the package as a root, each in its own transaction; a
 * failure becomes a diagnostic naming the declaration and leaves no partial schemas behind.
 */
export function projectModules(p: Projector, packageName: string, modules: readonly ProjectionModule[], onType?: TypeStep): AvroDiagnostic[] {
  const diagnostics: AvroDiagnostic[] = [];
  const total = onType ? modules.reduce((n, m) => n + m.types.length, 0) : 0;
  let done = 0;
  for (const module of modules) {
    const namespace = avroNamespace(packageName, module.path);
    for (const declaration of module.types) {
      // Before the transaction: what the step throws (a cancellation) is no diagnostic.
      onType?.(done++, total, declaration.source);
      if (p.invalidDeclarations.has(declaration.source)) continue;
      try {
        p.transaction(() => projectRoot(p, namespace, declaration));
      } catch (error) {
        diagnostics.push(asDiagnostic(error, declaration.source));
      }
    }
  }
  return diagnostics;
}

/** Turn a projection throw into a diagnostic located at `source`; anything else is a bug and rethrows. */
export function asDiagnostic(error: unknown, source: string): AvroDiagnostic {
  if (error instanceof AvroError) return error.withSource(source).diagnostic;
  throw error;
}

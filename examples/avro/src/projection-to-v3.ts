/**
 * Writes a normalized {@link ProjectionPackage} back out as a Morphir IR v3 Library distribution
 * (test-only): the public surface the readers keep, so `readIr(toV3(readIr(doc)))` equals
 * `readIr(doc)` for a document of either version. Value bodies are not part of the model and
 * are written as `Unit`.
 */
import type { ProjectionModule, ProjectionPackage, TypeDeclaration, TypeExpr, ValueSpecification } from './model.ts';
import { t, words } from './test-support.ts';

type Json = unknown;

const path = (p: string): string[][] => (p === '' ? [] : p.split('/').map(words));

function type(tpe: TypeExpr): Json {
  switch (tpe.kind) {
    case 'variable':
      return t.var(tpe.name);
    case 'reference':
      return t.ref(tpe.source, ...tpe.args.map(type));
    case 'tuple':
      return t.tuple(...tpe.elements.map(type));
    case 'record':
      return t.record(tpe.fields.map((f) => [f.name, type(f.tpe)]));
    case 'extensible':
      return t.extensible(tpe.variable, tpe.fields.map((f) => [f.name, type(f.tpe)]));
    case 'function':
      return t.fn(type(tpe.input), type(tpe.output));
    case 'unit':
      return t.unit();
  }
}

function definition(d: TypeDeclaration, specification: boolean): Json {
  const params = d.params.map(words);
  const ctors = (list: readonly { name: string; args: readonly { name: string; tpe: TypeExpr }[] }[]): Json =>
    list.map((c) => [words(c.name), c.args.map((a) => [words(a.name), type(a.tpe)])]);
  switch (d.kind) {
    case 'alias':
      return [specification ? 'TypeAliasSpecification' : 'TypeAliasDefinition', params, type(d.value)];
    case 'custom':
      return specification ? ['CustomTypeSpecification', params, ctors(d.constructors)] : ['CustomTypeDefinition', params, { access: 'Public', value: ctors(d.constructors) }];
    case 'opaque':
      // Opaque: a specification says so; a definition hides its constructors.
      return specification ? ['OpaqueTypeSpecification', params] : ['CustomTypeDefinition', params, { access: 'Private', value: [] }];
  }
}

function value(v: ValueSpecification, specification: boolean): Json {
  if (specification) return { doc: v.doc ?? '', value: { inputs: v.inputs.map((i) => [words(i.name), type(i.tpe)]), output: type(v.output) } };
  const inputTypes = v.inputs.map((i) => [words(i.name), {}, type(i.tpe)]);
  return { doc: v.doc ?? '', value: { inputTypes, outputType: type(v.output), body: ['Unit', {}] } };
}

function module(m: ProjectionModule, specification: boolean): Json {
  const types = m.types.map((d) => {
    const documented = { doc: d.doc ?? '', value: definition(d, specification) };
    return [words(d.name), specification ? documented : { access: 'Public', value: documented }];
  });
  const values = m.values.map((v) => [words(v.name), specification ? value(v, true) : { access: 'Public', value: value(v, false) }]);
  const content = { types, values, ...(m.doc ? { doc: m.doc } : {}) };
  return [m.path.map(words), specification ? content : { access: 'Public', value: content }];
}

/** A v3 Library distribution of the model. */
export function projectionToV3(pkg: ProjectionPackage): Json {
  const dependencies = pkg.dependencies.map((d) => [path(d.packageName), { modules: d.modules.map((m) => module(m, true)) }]);
  return { formatVersion: 3, distribution: ['Library', path(pkg.packageName), dependencies, { modules: pkg.modules.map((m) => module(m, false)) }] };
}

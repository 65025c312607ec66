/**
 * A newcomer's reading of Morphir IR v3 for the bench workloads: the modules of a library
 * distribution with their record aliases, custom types and values, names joined as an author
 * would (`["order", "line"]` → `OrderLine`). Deliberately plain code, as an extension author writes
 * it: the benches measure the engine on such code, not on tuned code.
 */

/** A type reference or expression of the IR (a tagged array). */
export type IrType = unknown[];

/** One field of a record alias. */
export interface IrField {
  name: string[];
  tpe: IrType;
}

/** A type definition: a record alias, another alias, or a custom type with its constructors. */
export interface IrTypeDef {
  module: string[][];
  name: string[];
  doc: string;
  params: string[][];
  kind: 'record' | 'alias' | 'custom';
  fields: IrField[];
  target?: IrType;
  constructors: { name: string[]; args: [string[], IrType][] }[];
}

/** A value (function) definition's signature. */
export interface IrValueDef {
  module: string[][];
  name: string[];
  doc: string;
  inputs: [string[], IrType][];
  output: IrType;
}

/** The parts of a distribution the workloads read. */
export interface IrModel {
  packageName: string[][];
  types: IrTypeDef[];
  values: IrValueDef[];
}

interface Documented {
  access?: string;
  value: { doc?: string; value: unknown };
}

/** Reads a v3 `Library` distribution; throws a TypeError naming what is not one. */
export function readModel(ir: unknown): IrModel {
  const dist = (ir as { distribution?: unknown[] }).distribution;
  if (!Array.isArray(dist) || dist[0] !== 'Library') throw new TypeError('expected a Morphir IR v3 Library distribution');
  const packageName = dist[1] as string[][];
  const modules = (dist[3] as { modules: [string[][], { value: { types: [string[], Documented][]; values: [string[], Documented][] } }][] }).modules;
  const types: IrTypeDef[] = [];
  const values: IrValueDef[] = [];
  for (const [module, entry] of modules) {
    for (const [name, def] of entry.value.types) {
      const [tag, params, body] = def.value.value as [string, string[][], unknown];
      const base = { module, name, doc: def.value.doc ?? '', params, fields: [] as IrField[], constructors: [] as IrTypeDef['constructors'] };
      if (tag === 'TypeAliasDefinition') {
        const target = body as IrType;
        if (target[0] === 'Record') types.push({ ...base, kind: 'record', fields: target[2] as IrField[] });
        else types.push({ ...base, kind: 'alias', target });
      } else {
        const ctors = (body as { value: [string[], [string[], IrType][]][] }).value;
        types.push({ ...base, kind: 'custom', constructors: ctors.map(([n, args]) => ({ name: n, args })) });
      }
    }
    for (const [name, def] of entry.value.values) {
      const spec = def.value.value as { inputTypes: [string[], unknown, IrType][]; outputType: IrType };
      values.push({ module, name, doc: def.value.doc ?? '', inputs: spec.inputTypes.map(([n, , t]) => [n, t]), output: spec.outputType });
    }
  }
  return { packageName, types, values };
}

const capital = (word: string): string => (word.length === 0 ? word : word[0]!.toUpperCase() + word.slice(1));

/** `["order", "line"]` → `OrderLine`. */
export const pascal = (name: string[]): string => name.map(capital).join('');

/** `["order", "line"]` → `orderLine`. */
export const camel = (name: string[]): string => name.map((w, i) => (i === 0 ? w : capital(w))).join('');

/** `[["acme"], ["showcase"]]` → `acme.showcase`. */
export const dotted = (path: string[][]): string => path.map((n) => camel(n)).join('.');

/** The fully qualified name of a `Reference` type, or undefined for any other type. */
export function referenceName(t: IrType): { pkg: string; module: string; local: string; args: IrType[] } | undefined {
  if (t[0] !== 'Reference') return undefined;
  const [pkg, module, local] = t[2] as [string[][], string[][], string[]];
  return { pkg: dotted(pkg), module: dotted(module), local: pascal(local), args: (t[3] as IrType[]) ?? [] };
}

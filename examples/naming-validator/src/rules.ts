/**
 * Naming rules for the public surface of a Morphir model. Morphir names are lists of lowercase
 * words (`["as", "of"]`, canonically `as-of`); these rules catch names that read badly in every
 * generated language.
 */
import type { NamedType, ProjectionPackage, TypeExpr } from '../../avro/src/index.ts';

/** Options of the validator, after validation. */
export interface NamingOptions {
  /** Words no public name may contain (e.g. `data`, `info`, `temp`). */
  forbiddenWords: string[];
  /** The most words a name may have. */
  maxWords: number;
}

/** One finding, located at a Morphir FQName (and a member of it, for fields and inputs). */
export interface Finding {
  code: 'NAMING001' | 'NAMING002' | 'NAMING003' | 'NAMING004';
  severity: 'error' | 'warning' | 'info';
  message: string;
  fqname: string;
  member?: string;
}

const words = (canonical: string) => canonical.split('-');

function checkName(out: Finding[], options: NamingOptions, fqname: string, name: string, what: string, member?: string): void {
  const forbidden = words(name).filter((w) => options.forbiddenWords.includes(w));
  if (forbidden.length > 0) {
    out.push({ code: 'NAMING001', severity: 'error', fqname, member, message: `${what} '${name}' uses the forbidden word${forbidden.length > 1 ? 's' : ''} ${forbidden.map((w) => `'${w}'`).join(', ')}.` });
  }
  if (words(name).length > options.maxWords) {
    out.push({ code: 'NAMING003', severity: 'warning', fqname, member, message: `${what} '${name}' has ${words(name).length} words; keep names to ${options.maxWords} or fewer.` });
  }
}

function checkMembers(out: Finding[], options: NamingOptions, fqname: string, members: readonly NamedType[], what: string): void {
  for (const m of members) {
    checkName(out, options, fqname, m.name, what, m.name);
    if (m.name.length === 1) out.push({ code: 'NAMING002', severity: 'warning', fqname, member: m.name, message: `${what} '${m.name}' is a single letter; say what it holds.` });
  }
}

function recordFields(t: TypeExpr): readonly NamedType[] {
  return t.kind === 'record' || t.kind === 'extensible' ? t.fields : [];
}

/** Applies every rule to the public surface of `pkg`, in a stable order. */
export function checkNaming(pkg: ProjectionPackage, options: NamingOptions): Finding[] {
  const out: Finding[] = [];
  for (const module of pkg.modules) {
    const moduleName = module.path[module.path.length - 1] ?? '';
    for (const decl of module.types) {
      checkName(out, options, decl.source, decl.name, 'Type');
      // Customer.CustomerInfo reads "customer customer info" once qualified: drop the prefix.
      if (decl.name !== moduleName && decl.name.startsWith(`${moduleName}-`)) {
        out.push({ code: 'NAMING004', severity: 'info', fqname: decl.source, message: `Type '${decl.name}' repeats its module name '${moduleName}'; '${decl.name.slice(moduleName.length + 1)}' reads better when qualified.` });
      }
      if (decl.kind === 'alias') checkMembers(out, options, decl.source, recordFields(decl.value), 'Field');
      if (decl.kind === 'custom') {
        for (const ctor of decl.constructors) checkName(out, options, ctor.source, ctor.name, 'Constructor');
      }
    }
    for (const value of module.values) {
      checkName(out, options, value.source, value.name, value.valueKind === 'function' ? 'Function' : 'Constant');
      checkMembers(out, options, value.source, value.inputs, 'Input');
    }
  }
  return out;
}

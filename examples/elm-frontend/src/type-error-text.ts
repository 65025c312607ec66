/**
 * Words for morphir-elm's type errors. The compiler reports them as tagged JSON (its
 * `Morphir.Type.Infer` codecs); this renders them in Elm's own notation, e.g.
 * `String does not match Int` or `String is not a number`.
 */
import { pathFromJson, toCamelCase, toTitleCase, type MorphirName } from './elm-names.ts';

type Json = unknown;

const list = (value: Json): Json[] => (Array.isArray(value) ? value : []);
const words = (value: Json): MorphirName => list(value).map(String);

/** The type name an FQName (`[package, module, local]`) is written with in Elm: its local name. */
function fqnTitle(fqn: Json): string {
  return toTitleCase(words(list(fqn)[2]));
}

/** A meta type (`["meta_ref", fqn, args, alias]`, `["meta_fun", a, b]`, …) in Elm notation. */
export function metaTypeText(type: Json, nested = false): string {
  const node = list(type);
  const wrap = (text: string): string => (nested ? `(${text})` : text);
  switch (node[0]) {
    case 'meta_var':
      return `t${String(node[1])}`;
    case 'meta_ref': {
      const args = list(node[2]).map((a) => metaTypeText(a, true));
      const head = fqnTitle(node[1]);
      return args.length === 0 ? head : wrap(`${head} ${args.join(' ')}`);
    }
    case 'meta_tuple':
      return `( ${list(node[1]).map((t) => metaTypeText(t)).join(', ')} )`;
    case 'meta_record': {
      const fields = list(node[3]).map((f) => `${toCamelCase(words(list(f)[0]))} : ${metaTypeText(list(f)[1])}`);
      const open = node[2] === true ? `t${String(node[1])} | ` : '';
      return fields.length === 0 ? (open ? `{ t${String(node[1])} }` : '{}') : `{ ${open}${fields.join(', ')} }`;
    }
    case 'meta_fun':
      return wrap(`${metaTypeText(node[1], true)} -> ${metaTypeText(node[2])}`);
    case 'meta_unit':
      return '()';
    default:
      return JSON.stringify(type);
  }
}

function unificationText(error: Json): string[] {
  const node = list(error);
  switch (node[0]) {
    case 'UnificationErrors':
      return list(node[1]).flatMap(unificationText);
    case 'CouldNotUnify': {
      const why = node[1] === 'TuplesOfDifferentSize' ? ' (tuples of different sizes)' : node[1] === 'FieldMismatch' ? ' (their fields differ)' : '';
      return [`${metaTypeText(node[2])} does not match ${metaTypeText(node[3])}${why}`];
    }
    case 'CouldNotFindField':
      return [`there is no field ${toCamelCase(words(node[1]))}`];
    default:
      return [`the types do not unify (${JSON.stringify(error)})`];
  }
}

const LOOKUP: Record<string, string> = {
  could_not_find_constructor: 'cannot find the constructor',
  could_not_find_value: 'cannot find the value',
  could_not_find_alias: 'cannot find the type alias',
  expected_alias: 'expected a type alias, found',
};

/**
 * The sentences of a type error (`["class_constraint_violation", type, ["Number"]]`, `["UnifyError", …]`, …).
 *
 * @example
 * typeErrorText(['class_constraint_violation', stringType, ['Number']]); // ['String is not a number']
 */
export function typeErrorText(error: Json): string[] {
  const node = list(error);
  switch (node[0]) {
    case 'type_errors':
      return list(node[1]).flatMap(typeErrorText);
    case 'class_constraint_violation': {
      const cls = list(node[2])[0];
      return [`${metaTypeText(node[1])} is not ${cls === 'Number' ? 'a number (Int or Float)' : 'appendable (String or List)'}`];
    }
    case 'lookup_error': {
      const lookup = list(node[1]);
      const fqn = list(lookup[1]);
      const local = words(fqn[2]);
      return [`${LOOKUP[String(lookup[0])] ?? String(lookup[0])} ${lookup[0] === 'could_not_find_value' ? toCamelCase(local) : toTitleCase(local)}`];
    }
    case 'unknown_error':
      return [String(node[1])];
    case 'RecursiveConstraint':
      return [`${metaTypeText(node[1])} and ${metaTypeText(node[2])} would make an infinite type`];
    case 'UnifyError':
      return unificationText(node[1]);
    default:
      return [JSON.stringify(error)];
  }
}

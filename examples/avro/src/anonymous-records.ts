/**
 * Named schemas for anonymous records — our extension of the reference mapping, which refuses
 * them (AVRO001). Elm code often writes `BankTransfer { iban : String }` or a field typed
 * `{ street : String }`; Avro needs a name, so one is derived from where the record is written:
 * - a constructor argument: `<Ctor><Arg>` (`BankTransferArg1`; morphir-elm names positional
 *   arguments `arg1`, `arg2`, …) in the constructor's namespace `<module ns>.<Type>`;
 * - a record field: `<Owner><Field>` (`ShipmentDestination`) in the owner's namespace;
 * - a value input or output in a protocol: `<Value><Input>` / `<Value>Response`;
 * - the value of a non-record alias or wrapper: `<Alias>Value`;
 * - inside a tuple: `<Hint>Item<N>`; `Maybe`/`List`/`Set`/`Dict` pass the name through.
 * The name depends only on the model, never on traversal order. A different record that
 * derives the same name gets `_<12-hex digest>` of its canonical type, as generic
 * instantiations do; only then does a digest appear.
 */
import { unsupportedType } from './diagnostics.ts';
import { canonicalType, digest12 } from './digest.ts';
import { projectFieldsSorted } from './declarations.ts';
import type { AvroType, FullName, NamedType, TypeExpr } from './model.ts';
import { fullNameKey } from './model.ts';
import { isValidFullName, upperCamel } from './naming.ts';
import type { Projector } from './projector.ts';
import { utf8 } from './sha256.ts';

/** Name a type derives for an anonymous record written in field, argument or input `member` of `prefix`. */
export const memberHint = (prefix: string | undefined, member: string): string | undefined =>
  prefix === undefined ? undefined : `${prefix}${upperCamel(member)}`;

/**
 * Whether projecting `tpe` can read a hint: only a record names itself from its position, and
 * only tuples and references with arguments (collections) pass the position on. Most fields,
 * `Maybe String` and `List Int` included, reach no record and need no hint spelled.
 */
export function mayHoldAnonymousRecord(tpe: TypeExpr): boolean {
  switch (tpe.kind) {
    case 'record':
      return true;
    case 'tuple':
      for (let i = 0; i < tpe.elements.length; i++) if (mayHoldAnonymousRecord(tpe.elements[i])) return true;
      return false;
    case 'reference':
      for (let i = 0; i < tpe.args.length; i++) if (mayHoldAnonymousRecord(tpe.args[i])) return true;
      return false;
    default:
      return false;
  }
}

/**
 * Project an anonymous record as a named record derived from `hint`, in `namespace`.
 * @throws {AvroError} AVRO001 when no name can be derived (no hint).
 */
export function projectAnonymousRecord(p: Projector, namespace: string, owner: string, hint: string | undefined, fields: readonly NamedType[]): AvroType {
  if (hint === undefined) throw unsupportedType(`anonymous record in ${owner} has no position to derive a name from`);
  const identity = `anonymous-record:${owner}:${canonicalType({ kind: 'record', fields })}`;
  let fullName: FullName = { namespace, name: hint };
  const existing = p.registry.get(fullNameKey(fullName));
  if ((existing !== undefined && existing !== identity) || !isValidFullName(fullName)) {
    fullName = { namespace, name: `${hint}_${digest12(utf8(identity))}` };
  }
  if (!isValidFullName(fullName)) throw unsupportedType(`anonymous record in ${owner}: invalid derived Avro name ${fullNameKey(fullName)}`);
  p.claim(fullNameKey(fullName), identity);
  const key = fullNameKey(fullName);
  if (p.containsKey(key) || p.building.has(key)) return { kind: 'named', fullName };
  p.building.add(key);
  const projected = projectFieldsSorted(p, namespace, owner, fields, fullName.name);
  p.insert({ kind: 'record', fullName, fields: projected, props: { 'morphir.owner': owner, 'morphir.type': 'AnonymousRecord' } }, p.isLinkedSource(owner));
  p.building.delete(key);
  return { kind: 'named', fullName };
}

/**
 * The heavy input of the author workloads (issue 32): a Morphir IR v3 library shaped like
 * fixtures/ir/showcase (documented record aliases referencing SDK types and each other, enums,
 * custom types with payloads, one function per few types), with `recordTypes` record types in
 * modules of 100. 3,000 record types is ≈ 4.6 MB of JSON. Deterministic.
 */

type Json = unknown;

const sdk = (module: string[], local: string[], ...args: Json[]): Json => ['Reference', {}, [[['morphir'], ['s', 'd', 'k']], [module], local], args];
const STRING = sdk(['string'], ['string']);
const INT = sdk(['basics'], ['int']);
const DECIMAL = sdk(['decimal'], ['decimal']);
const DATE = sdk(['local', 'date'], ['local', 'date']);
const PKG = [['acme'], ['heavy']];

const ref = (module: number, local: string[]): Json => ['Reference', {}, [PKG, [['area', String(module)]], local], []];
const documented = (doc: string, value: Json): Json => ({ access: 'Public', value: { doc, value } });
const WORDS = ['order', 'customer', 'invoice', 'shipment', 'product', 'account', 'payment', 'address', 'contract', 'ledger'];

function recordType(module: number, i: number): Json {
  const word = WORDS[i % WORDS.length]!;
  const fields: Json[] = [
    { name: ['id'], tpe: STRING },
    { name: [word, 'name'], tpe: STRING },
    { name: ['quantity'], tpe: INT },
    { name: ['unit', 'price'], tpe: DECIMAL },
    { name: ['created', 'on'], tpe: DATE },
    { name: ['tags'], tpe: sdk(['list'], ['list'], STRING) },
    { name: ['note'], tpe: sdk(['maybe'], ['maybe'], STRING) },
    { name: ['status'], tpe: ref(module, ['status', String(Math.floor(i / 10))]) },
  ];
  if (i > 0) fields.push({ name: ['previous', 'lines'], tpe: sdk(['list'], ['list'], ref(module, [WORDS[(i - 1) % WORDS.length]!, String(i - 1)])) });
  if (module > 0) fields.push({ name: ['upstream'], tpe: ref(module - 1, [word, String(i)]) });
  return [[word, String(i)], documented(` A ${word} record.\n`, ['TypeAliasDefinition', [], ['Record', {}, fields]])];
}

function moduleDefinition(module: number, records: number): Json {
  const types: Json[] = [];
  const values: Json[] = [];
  for (let i = 0; i < records; i++) {
    types.push(recordType(module, i));
    if (i % 10 === 0) {
      const ctors = ['draft', 'open', 'closed', 'archived'].map((c) => [[c], []]);
      types.push([['status', String(i / 10)], documented(' The state of a record.\n', ['CustomTypeDefinition', [], { access: 'Public', value: ctors }])]);
      const payload = [[['single'], [[['value'], ref(module, [WORDS[i % WORDS.length]!, String(i)])]]], [['pair'], [[['left'], STRING], [['right'], INT]]], [['none'], []]];
      types.push([['choice', String(i / 10)], documented(' A choice with payloads.\n', ['CustomTypeDefinition', [], { access: 'Public', value: payload }])]);
    }
    if (i % 5 === 0) {
      const self = ref(module, [WORDS[i % WORDS.length]!, String(i)]);
      values.push([
        ['find', String(i)],
        documented(` Finds record ${i}.\n`, { inputTypes: [[['id'], ['Unit', {}], STRING], [['limit'], ['Unit', {}], INT]], outputType: sdk(['maybe'], ['maybe'], self), body: ['Unit', {}] }),
      ]);
    }
  }
  return [[['area', String(module)]], { access: 'Public', value: { types, values, doc: ` Area ${module}.` } }];
}

/** A v3 library of `recordTypes` record types (plus an enum and a custom type per ten) in modules of 100. */
export function heavyIr(recordTypes: number): Record<string, unknown> {
  const modules: Json[] = [];
  for (let m = 0; m * 100 < recordTypes; m++) modules.push(moduleDefinition(m, Math.min(100, recordTypes - m * 100)));
  return { formatVersion: 3, distribution: ['Library', PKG, [], { modules }] };
}

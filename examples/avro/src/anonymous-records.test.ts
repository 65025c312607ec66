import avsc from 'avsc';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { generateAvro } from './generate.ts';
import { assertParsesWithAvsc, library, t } from './test-support.ts';

const names = (content: string): string[] => {
  const out: string[] = [];
  avsc.Type.forSchema(JSON.parse(content), { typeHook: (s: { name?: string; namespace?: string }) => void (s.name && out.push(`${s.namespace}.${s.name}`)) } as never);
  return out.sort();
};
const artifact = (result: ReturnType<typeof generateAvro>, suffix: string): string => {
  const found = result.artifacts.find((a) => a.path.endsWith(suffix));
  assert.ok(found, `no ${suffix} among ${result.artifacts.map((a) => a.path).join(', ')}`);
  return (found as { content: string }).content;
};

const naming = suite('anonymous records :: derived names');

naming('should name a record inside List/Maybe fields and tuples after the field, and nested records after their parent', async () => {
  const inner = t.record([['code', t.string()]]);
  const ir = library('acme/app', [
    {
      path: 'm',
      types: [
        {
          name: 'order',
          alias: t.record([
            ['lines', t.ref('morphir/SDK:list#list', t.record([['sku', t.string()], ['origin', inner]]))],
            ['note', t.ref('morphir/SDK:maybe#maybe', t.record([['text', t.string()]]))],
            ['pair', t.tuple(t.record([['left', t.int()]]), t.int())],
          ]),
        },
      ],
    },
  ]);
  const result = generateAvro(ir, {});
  assert.ok(result.success, JSON.stringify(result.diagnostics));
  await assertParsesWithAvsc(result.artifacts);
  const all = names(artifact(result, '/Order.avsc'));
  for (const name of ['acme.app.m.OrderLines', 'acme.app.m.OrderLinesOrigin', 'acme.app.m.OrderNote', 'acme.app.m.OrderPairItem1']) assert.ok(all.includes(name), `${name} in ${all}`);
});

naming('should add a digest only when the derived name is taken by something else', async () => {
  const ir = library('acme/app', [
    {
      path: 'm',
      types: [
        // `Box.lineItem` and `BoxLine.item` both derive `BoxLineItem`; a declared `OrderLines` takes the plain name first.
        { name: 'box', alias: t.record([['line-item', t.record([['x', t.int()]])]]) },
        { name: 'box-line', alias: t.record([['item', t.record([['y', t.string()]])]]) },
        { name: 'order', alias: t.record([['lines', t.record([['z', t.bool()]])]]) },
        { name: 'order-lines', alias: t.record([['id', t.int()]]) },
      ],
    },
  ]);
  const first = generateAvro(ir, {});
  assert.ok(first.success, JSON.stringify(first.diagnostics));
  await assertParsesWithAvsc(first.artifacts);
  const box = names(artifact(first, '/Box.avsc'));
  const boxLine = names(artifact(first, '/BoxLine.avsc'));
  assert.ok(box.includes('acme.app.m.BoxLineItem'), String(box));
  assert.ok(boxLine.some((n) => /^acme\.app\.m\.BoxLineItem_[0-9a-f]{12}$/.test(n)), String(boxLine));
  assert.ok(names(artifact(first, '/Order.avsc')).some((n) => /^acme\.app\.m\.OrderLines_[0-9a-f]{12}$/.test(n)));
  assert.equal(generateAvro(ir, {}), first, 'two runs are byte-identical');
});

naming('should name constructor arguments <Ctor><Arg> in the constructor namespace, and value inputs <Value><Input>', async () => {
  const ir = library('acme/app', [
    {
      path: 'm',
      types: [{ name: 'payment', custom: [['cash', []], ['transfer', [['arg1', t.record([['iban', t.string()]])]]]] }],
      values: [{ name: 'quote', inputs: [['request', t.record([['qty', t.int()]])]], output: t.record([['price', t.int()]]) }],
    },
  ]);
  const json = generateAvro(ir, { projection: 'protocol-public' });
  assert.ok(json.success, JSON.stringify(json.diagnostics));
  await assertParsesWithAvsc(json.artifacts);
  const protocol = JSON.parse(artifact(json, '/M.avpr'));
  assert.equal(protocol.messages.quote.request, [{ name: 'request', type: 'acme.app.QuoteRequest' }]);
  assert.is(protocol.messages.quote.response, 'acme.app.QuoteResponse');
  const schemas = generateAvro(ir, {});
  assert.ok(names(artifact(schemas, '/Payment.avsc')).includes('acme.app.m.Payment.TransferArg1'));
  const idl = generateAvro(ir, { representation: 'idl', projection: 'protocol-public' });
  await assertParsesWithAvsc(idl.artifacts);
});

naming('should never take the name of a later constructor (Transfer { … } beside TransferArg1)', async () => {
  const ir = library('acme/app', [
    { path: 'm', types: [{ name: 'payment', custom: [['transfer', [['arg1', t.record([['iban', t.string()]])]]], ['transfer-arg1', [['arg1', t.int()]]]] }] },
  ]);
  const result = generateAvro(ir, {});
  assert.ok(result.success, JSON.stringify(result.diagnostics));
  await assertParsesWithAvsc(result.artifacts);
  const all = names(artifact(result, '/Payment.avsc'));
  assert.ok(all.includes('acme.app.m.Payment.TransferArg1'));
  assert.ok(all.some((n) => /^acme\.app\.m\.Payment\.TransferArg1_[0-9a-f]{12}$/.test(n)), String(all));
});

naming('should still refuse what has no record semantics (extensible records, functions)', () => {
  const ir = library('acme/app', [{ path: 'm', types: [{ name: 'x', alias: t.record([['f', t.extensible('r', [['a', t.int()]])]]) }] }]);
  const result = generateAvro(ir, {});
  assert.equal([result.success, result.diagnostics.map((d) => d.code)], [false, ['AVRO001']]);
});

naming.run();

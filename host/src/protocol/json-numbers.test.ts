/**
 * Red team of the host's JSON readers on numbers a double cannot hold (issue 31): before, each was
 * changed without a word (`1e400` → null, `1e-400` → 0, `9007199254740993` → …992), in a served
 * call's params as in an input file. Now every reader refuses it the same way, naming it.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { UnheldNumberError, changedNumber } from './json-numbers.ts';
import { parseJson } from './json-parse.ts';
import { parseJsonSliced } from './json-sliced.ts';
import { JsonText } from './json-text.ts';

const Numbers = suite('JSON numbers a double cannot hold');

/** Every reader of the host on `text`: the value, or the error it throws. */
async function readers(text: string): Promise<[string, unknown][]> {
  const attempt = async (read: () => unknown): Promise<unknown> => {
    try {
      return await read();
    } catch (error) {
      return error;
    }
  };
  return [
    ['parseJson', await attempt(() => parseJson(text, 'data'))],
    ['parseJsonSliced', await attempt(() => parseJsonSliced(text, { nativeChars: 0 }))],
    ['parseJsonSliced (native runs)', await attempt(() => parseJsonSliced(text))],
    ['JsonText', await attempt(() => JsonText.parse(text))],
    ['JsonText (indented)', await attempt(() => JsonText.parse(text.replace('{', '{\n  ')))],
  ];
}

Numbers('should refuse a number no double holds in every reader, naming it, where it is and what it would become :: refuse', async () => {
  const cases: [string, string][] = [
    ['1e400', 'null'],
    ['-1e400', 'null'],
    ['1e-400', '0'],
    ['-2.5E-330', '-0'],
    ['9007199254740993', '9007199254740992'],
    ['123456789012345678901234567890', '1.2345678901234568e+29'],
    ['3.14159265358979323846', '3.141592653589793'],
    ['0.10000000000000001', '0.1'],
    ['4.9e-324', '5e-324'],
  ];
  for (const [number, becomes] of cases) {
    const text = `{"jsonrpc":"2.0","id":1,"method":"m",\n"params":{"x":[1,${number}]}}`;
    for (const [reader, outcome] of await readers(text)) {
      assert.instance(outcome, UnheldNumberError, `${reader} took ${number}`);
      const error = outcome as UnheldNumberError;
      assert.is(error.number, number, reader);
      assert.is(error.becomes, becomes === '-0' ? '0' : becomes, `${reader}: ${number}`);
      assert.match(error.message, new RegExp(`at line ${reader.includes('indented') ? 3 : 2}, column 18 .*send such a value as a string`), `${reader}: ${error.message}`);
    }
  }
});

Numbers('should take every number a double holds as JSON.parse does, -0 as zero :: take', async () => {
  for (const number of ['0', '-0', '-0.0e5', '0e99999', '1.50', '1E2', '1e21', '1e23', '0.1', '5e-324', '1.7976931348623157e308', '9007199254740992', '9007199254740994', '123456789012345', '0.000000000000000001', '100000000000000000000000000000', '2.5e-7', '-12.5e-3']) {
    const text = `{"x":[${number}],"s":"1e400 and 12345678901234567890 in a string"}`;
    for (const [reader, outcome] of await readers(text)) {
      assert.not.instance(outcome, Error, `${reader} refused ${number}: ${String(outcome)}`);
      const value = outcome instanceof JsonText ? outcome.value() : outcome;
      assert.ok(Object.is((value as { x: number[] }).x[0], JSON.parse(number)), `${reader}: ${number}`);
    }
    assert.is(changedNumber(number), undefined, number);
  }
});

Numbers.run();

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseOptionFlags } from '../cli/commands/options.ts';
import { HostileKeyError, parseJson } from './json-parse.ts';

const Parse = suite('parseJson :: hostile keys');

const keyOf = (text: string, policy?: Parameters<typeof parseJson>[1]): unknown => {
  try {
    parseJson(text, policy);
    return 'accepted';
  } catch (error) {
    return error instanceof HostileKeyError ? [error.key, error.path.join('.')] : (error as Error).name;
  }
};

Parse('should refuse __proto__, constructor and prototype anywhere a document has fixed keys, however they are spelled', () => {
  assert.equal(keyOf('{"__proto__": {}}'), ['__proto__', '']);
  assert.equal(keyOf('{"a": [{"b": {"constructor": 1}}]}'), ['constructor', 'a.*.b']);
  assert.equal(keyOf('{"\\u0070rototype": 1}'), ['prototype', '']);
  assert.equal(keyOf('{"\\u005f\\u005fproto\\u005f\\u005f": 1}'), ['__proto__', '']);
  assert.is(keyOf('{"a": "__proto__ constructor prototype", "b": ["constructor"]}'), 'accepted', 'as values they are text');
  assert.is(keyOf('{"caf\\u00e9": 1}'), 'accepted');
  assert.is(keyOf('{"a": '), 'SyntaxError');
});

Parse('should keep them as own members, never a prototype, where keys are data', () => {
  const value = parseJson('{"env": {"__proto__": {"polluted": true}, "constructor": "c"}}', { dataAt: (path) => path[0] === 'env' }) as { env: Record<string, unknown> };
  assert.equal(Object.keys(value.env), ['__proto__', 'constructor']);
  assert.is(Object.getPrototypeOf(value.env), Object.prototype);
  assert.is((value.env as { polluted?: unknown }).polluted, undefined);
  assert.is(({} as { polluted?: unknown }).polluted, undefined);
  const data = parseJson('{"__proto__": {"polluted": true}}', 'data') as Record<string, unknown>;
  assert.equal(Object.keys(data), ['__proto__']);
  assert.is((data as { polluted?: unknown }).polluted, undefined);
});

Parse('should keep an --option named __proto__ an own option, never the prototype of the options :: hostile', () => {
  const options = parseOptionFlags(['__proto__={"polluted": true}', 'constructor=1']);
  assert.equal(Object.keys(options), ['__proto__', 'constructor']);
  assert.is((options as { polluted?: unknown }).polluted, undefined);
  assert.equal(JSON.parse(JSON.stringify(options)), JSON.parse('{"__proto__": {"polluted": true}, "constructor": 1}'));
});

Parse('should be the only JSON parser of the host: no JSON.parse elsewhere in host/src', () => {
  const src = fileURLToPath(new URL('../', import.meta.url));
  const offenders: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && entry.name !== 'json-parse.ts') {
        const code = readFileSync(path, 'utf8').split('\n').filter((line) => !/^\s*(\*|\/\/)/.test(line));
        if (code.some((line) => line.includes('JSON.parse('))) offenders.push(relative(src, path));
      }
    }
  };
  walk(src);
  assert.equal(offenders, []);
});

Parse.run();

// One small deterministic use of each of 13 popular npm packages (ajv and fast-xml-parser are
// in ajv-probe.js), and of the sandbox's built-ins: the compatibility suite (compat.test.ts) runs
// these in the wasm sandbox, in the process runtime and directly in Node, and the three answers
// must be the same.
import * as z from 'zod';
import YAML from 'yaml';
import { chunk, groupBy, sortBy, template, uniq, camelCase as lodashCamel } from 'lodash-es';
import { addDays, differenceInCalendarDays, format } from 'date-fns';
import { marked } from 'marked';
import semver from 'semver';
import { camelCase, pascalCase, snakeCase } from 'change-case';
import { v4 as uuidv4, v5 as uuidv5, validate as uuidValidate, version as uuidVersion } from 'uuid';
import { produce } from 'immer';
import Decimal from 'decimal.js';
import Handlebars from 'handlebars';
import * as jsYaml from 'js-yaml';
import { assert as ssAssert, number, object, string, validate as ssValidate } from 'superstruct';

// What a probe expects to throw is compared by the error's name (messages differ between engines).
const attempt = (fn) => {
  try {
    return { ok: fn() };
  } catch (error) {
    return { threw: error?.name };
  }
};

/** Each package's result, by package name. */
export const PACKAGES = {
  zod: () => {
    const schema = z.object({ n: z.number().int(), tags: z.array(z.string()).max(2) });
    const bad = schema.safeParse({ n: 1.5, tags: ['a', 'b', 'c'] });
    return [schema.parse({ n: 2, tags: [] }), bad.success, bad.error.issues.map((i) => `${i.path.join('.')} ${i.code}`)];
  },
  yaml: () => [YAML.parse('a: [1, 2]\nb: { c: d }\nwhen: 2024-01-02\n'), YAML.stringify({ x: [1, { y: 'z' }], s: 'multi\nline' })],
  'lodash-es': () => [chunk([1, 2, 3, 4, 5], 2), groupBy(['one', 'two', 'three'], 'length'), sortBy([{ n: 3 }, { n: 1 }], 'n'), uniq([1, 1, 2]), template('hi <%= name %>!')({ name: 'mep' }), lodashCamel('Foo Bar-baz')],
  'date-fns': () => {
    const d = new Date(Date.UTC(2024, 0, 30, 12, 0, 0));
    return [format(addDays(d, 3), 'yyyy-MM-dd EEEE'), differenceInCalendarDays(new Date(Date.UTC(2024, 2, 1)), d), format(d, "do 'of' MMMM, HH:mm")];
  },
  marked: () => marked.parse('# Title\n\nSome *emphasis*, `code` and a [link](http://x.y).\n\n- one\n- two\n'),
  semver: () => [semver.satisfies('1.2.3', '^1.0.0'), semver.maxSatisfying(['1.2.3', '1.4.0', '2.0.0'], '~1.4'), semver.inc('1.2.3', 'prerelease', 'beta'), semver.valid('v1.0.0')],
  'change-case': () => [camelCase('hello_world-foo Bar'), snakeCase('HelloWorld'), pascalCase('mep runtime')],
  uuid: () => {
    const random = attempt(() => { const id = uuidv4(); return [uuidValidate(id), uuidVersion(id)]; });
    return [uuidv5('hello', uuidv5.URL), random];
  },
  immer: () => {
    const base = { list: [{ done: false }], n: 1 };
    const next = produce(base, (draft) => { draft.list[0].done = true; draft.n++; });
    return [next, base.list[0].done, Object.isFrozen(next)];
  },
  'decimal.js': () => [new Decimal(0.1).plus(0.2).toString(), Decimal.sqrt(2).toFixed(30), new Decimal('1e-40').times('3').toString()],
  handlebars: () => Handlebars.compile('Hi {{name}}! {{#each xs}}[{{this}}]{{/each}} {{#if no}}x{{else}}y{{/if}}')({ name: '<b>', xs: [1, 2] }),
  'js-yaml': () => [jsYaml.load('k: [a, b]\nn: 1.5\n'), jsYaml.dump({ a: { b: [1, 'two'] } })],
  superstruct: () => {
    const S = object({ a: number(), s: string() });
    const [error] = ssValidate({ a: 'x', s: 's' }, S);
    return [error.path, error.type, attempt(() => ssAssert({ a: 1, s: 's' }, S))];
  },
};

/** The built-ins, probed through the whole guest (the engine's own tests go further). */
export const BUILTINS = {
  url: () => { const u = new URL('../b?x=1#h', 'https://user@example.com:8443/a/c'); u.searchParams.append('y', 'z w'); return [u.href, u.origin, u.host]; },
  structuredClone: () => { const a = { m: new Map([[1, new Set([2])]]), d: new Date(0) }; a.self = a; const c = structuredClone(a); return [c.self === c, [...c.m.get(1)], c.d.toISOString(), attempt(() => structuredClone(() => 1))]; },
  text: () => [Array.from(new TextEncoder().encode('é😀')), new TextDecoder().decode(new Uint8Array([0x61, 0xff, 0x62])), attempt(() => new TextDecoder('utf-8', { fatal: true }).decode(new Uint8Array([0xff])))],
  base64: () => [btoa('mep'), atob('bWVw')],
  abort: () => { const c = new AbortController(); let seen = ''; c.signal.addEventListener('abort', () => (seen = c.signal.reason.name)); c.abort(); return [c.signal.aborted, seen]; },
  locale: () => [(1234567.891).toLocaleString(), new Date(0).toLocaleString(), ['b', 'A', 'a', 'B'].sort((x, y) => x.localeCompare(y))],
  timers: () => new Promise((resolve) => {
    const out = [];
    setTimeout(() => out.push('t5'), 5);
    setTimeout(() => { out.push('t1'); queueMicrotask(() => out.push('m')); }, 1);
    Promise.resolve().then(() => out.push('p'));
    setTimeout(() => resolve(out), 20);
  }),
};

/** Runs every probe of `packages` and the built-ins; a probe that throws reports its error instead of a result. */
export async function runProbes(packages = PACKAGES) {
  const out = {};
  for (const [name, fn] of Object.entries({ ...packages, ...BUILTINS })) {
    try {
      out[name] = { ok: await fn() };
    } catch (error) {
      out[name] = { threw: `${error?.name}: ${error?.message}` };
    }
  }
  return out;
}

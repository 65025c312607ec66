/**
 * Real npm packages whose code carries modern regular expressions, each used once the ordinary
 * way (issue 33): jsonpath-plus (v-flag literals, among them the two stock quickjs-ng 0.17
 * refused, and a v-flag lookbehind with a class of escaped punctuators), change-case (\p{Lu},
 * \p{Ll} and \p{N} under u), marked (Unicode punctuation \p{P}\p{S} in its emphasis rules) and
 * zod (an emoji check on \p{Extended_Pictographic}, its email pattern). Each probe answers its
 * value or the name of what it threw.
 */
import { camelCase, capitalCase, kebabCase, snakeCase, splitSeparateNumbers } from 'change-case';
import { JSONPath } from 'jsonpath-plus';
import { marked } from 'marked';
import * as z from 'zod';

/** A probe's outcome, JSON-safe. */
export type Outcome = { ok: unknown } | { threw: string };

const store = {
  store: {
    book: [
      { category: 'reference', author: 'Nigel Rees', title: 'Sayings of the Century', price: 8.95 },
      { category: 'fiction', author: 'Evelyn Waugh', title: 'Sword of Honour', price: 12.99 },
      { category: 'fiction', author: 'Herman Melville', title: 'Moby Dick', isbn: '0-553-21311-3', price: 8.99 },
      { category: 'fiction', author: 'J. R. R. Tolkien', title: 'The Lord of the Rings', isbn: '0-395-19395-8', price: 22.99 },
    ],
    bicycle: { color: 'red', price: 19.95 },
    'odd;;key': { 'a:b': 1 },
  },
};

const query = (path: string) => JSONPath({ path, json: store, wrap: true });

/** The probes by name. */
export const PROBES: Record<string, () => unknown> = {
  jsonpathAuthors: () => query('$.store.book[*].author'),
  jsonpathSlices: () => [query('$..book[0:2].title'), query('$..book[-1:].title'), query('$..book[::2].price'), query('$..book[1:3:1].isbn')],
  jsonpathFilters: () => [query('$..book[?(@.price < 10)].title'), query('$..book[?(@.isbn && @.category === "fiction")].author'), query("$..book[?(@.author.match(/^J\\./))].title")],
  jsonpathRecursive: () => [query('$..price'), query('$.store.*~'), query("$.store['bicycle','book'][0]"), query('$..book.length')],
  jsonpathOddKeys: () => [query("$.store['odd;;key']['a:b']"), query('$.store[odd;;key]'), JSONPath({ path: '$..price', json: store, resultType: 'path' })],
  jsonpathPointer: () => JSONPath.toPointer(JSONPath.toPathArray("$.store.book[0]['title']")),
  changeCase: () => ['XMLHttpRequest version2', 'Ünïcode strings äre Fun', 'camel2Case ABCdef', 'ÉCOLE du Louvre 2024', 'snake_case-and kebab'].map((s) => [camelCase(s), snakeCase(s), kebabCase(s), capitalCase(s), camelCase(s, { split: splitSeparateNumbers })]),
  marked: () => marked.parse('**«quoted»**, _émphasis_!\n\n*a*b* and __strong__. ~~gone~~ [l](https://example.com/x_y) `code` 😀**x**\n\n> quote with `x*y*z`\n\n- item *one*\n- item **two**', { async: false }),
  zodEmail: () => ['a@b.co', 'user.name+tag@example.com', 'x@y', 'ünïcode@example.com', 'a..b@c.de'].map((s) => z.email().safeParse(s).success),
  zodEmoji: () => ['😀', '👍🏽', '🇫🇷', 'a', '1️⃣', '😀x'].map((s) => z.emoji().safeParse(s).success),
  zodOthers: () => [z.uuid().safeParse('123e4567-e89b-12d3-a456-426614174000').success, z.ipv6().safeParse('::1').success, z.iso.datetime().safeParse('2024-01-01T00:00:00Z').success, z.url().safeParse('https://exämple.com').success],
};

/** Every probe's outcome. */
export async function runProbes(): Promise<Record<string, Outcome>> {
  const out: Record<string, Outcome> = {};
  for (const [name, probe] of Object.entries(PROBES)) {
    try {
      out[name] = { ok: JSON.parse(JSON.stringify(await probe())) };
    } catch (error) {
      out[name] = { threw: `${(error as Error)?.name}: ${(error as Error)?.message}` };
    }
  }
  return out;
}

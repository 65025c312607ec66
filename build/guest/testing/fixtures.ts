/**
 * Guest sources used by the tests and the bench, kept as strings so the repository's own
 * DOM/Node type check never sees guest globals. {@link writeFixture} puts one on disk.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../../engine/index.ts';

/** Folder the fixtures are written to (gitignored). */
export const FIXTURE_DIR = join(REPO_ROOT, '.cache', 'guest-fixtures');

/** A small extension with plain named exports, exercising the whole guest ABI. */
export const TEST_EXTENSION = `import { describe } from './describe.ts';

interface Message {
  jsonrpc: '2.0';
  id?: number;
  method: string;
  params?: unknown;
}

/** One JSON-RPC message in, one response out (none for a notification). */
export function handle(): number {
  const msg = JSON.parse(Host.inputString()) as Message;
  let result: unknown;
  switch (msg.method) {
    case 'echo':
      result = msg.params;
      break;
    case 'progress':
      __mep.notify(JSON.stringify({ jsonrpc: '2.0', method: '$/progress', params: { token: msg.id, value: 50 } }));
      result = 'notified';
      break;
    case 'secret': {
      const response = __mep.request(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'secret.resolve', params: { name: 'token' } }));
      result = response === null ? null : (JSON.parse(response) as { result: unknown }).result;
      break;
    }
    case 'describe':
      result = describe();
      break;
    default:
      result = { unknown: msg.method };
  }
  if (msg.id === undefined) return 0;
  Host.outputString(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result }));
  return 0;
}

export function fail(): number {
  throw new TypeError('guest failure on purpose');
}

export function recurse(): number {
  const down = (n: number): number => down(n + 1) + 1;
  return down(0);
}

export function spin(): number {
  let n = 0;
  for (;;) n++;
}

export function echo(): number {
  Host.outputBytes(Host.inputBytes());
  return 0;
}

export function log(): number {
  console.log('hello', { from: 'guest' });
  console.warn('careful');
  return 0;
}
`;

/** A second module of the test extension, so bundling and source maps span files. */
export const TEST_EXTENSION_DESCRIBE = `export function describe(): Record<string, unknown> {
  const list = [3, 1, 2];
  return {
    at: list.at(-1),
    findLast: list.findLast((x) => x < 3),
    sorted: list.toSorted(),
    list,
    hasOwn: Object.hasOwn({ a: 1 }, 'a'),
    replaced: 'a-b-c'.replaceAll('-', '+'),
    clone: structuredClone({ deep: [1, { two: 2 }] }),
    text: new TextDecoder().decode(new TextEncoder().encode('héllo ✓')),
    now: Date.now(),
    bigint: String(2n ** 64n),
  };
}
`;

/** An entry with a type error on line 3. */
export const TYPE_ERROR = `export function handle(): number {
  const n: number = 1;
  const s: string = n;
  Host.outputString(s);
  return 0;
}
`;

/** An entry with a syntax error on line 2. */
export const SYNTAX_ERROR = `export function handle(): number {
  const x = ;
  return 0;
}
`;

/** An entry that throws at module top level (line 4 of the helper module). */
export const TOP_LEVEL_THROW = `import './throws.ts';
export function handle(): number {
  return 0;
}
`;
export const TOP_LEVEL_THROW_HELPER = `const config = { ready: false };

if (!config.ready) {
  throw new Error('configuration is not ready');
}
export {};
`;

/**
 * Writes a fixture to FIXTURE_DIR/<name> and returns its path. The folder gets a package.json of
 * its own, as a user's project has: otherwise the repository's `"sideEffects": false` would let
 * the bundler drop a fixture's side-effect-only imports (`import './throws.ts'`).
 */
export function writeFixture(name: string, source: string): string {
  mkdirSync(FIXTURE_DIR, { recursive: true });
  writeFileSync(join(FIXTURE_DIR, 'package.json'), '{ "private": true, "type": "module" }\n');
  const file = join(FIXTURE_DIR, name);
  writeFileSync(file, source);
  return file;
}

/** Writes the test extension (two files) and returns the entry path. */
export function writeTestExtension(): string {
  writeFixture('describe.ts', TEST_EXTENSION_DESCRIBE);
  return writeFixture('test-extension.ts', TEST_EXTENSION);
}

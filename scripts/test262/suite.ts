/**
 * The test262 snapshot: where it is (the nearest `shared/reference/test262/` above the checkout,
 * or `MEP_TEST262_DIR`), extracted into `.cache/test262/` at test time (never committed), the
 * tests it holds with their front matter, and which of them quickjs-ng's conf runs, in which modes.
 */
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { REPO_ROOT } from '../../build/engine/index.ts';
import { parseConf, type Test262Conf } from './conf.ts';
import type { EngineRun, Expectation } from './outcome.ts';

/** The snapshot in use. */
export interface Suite {
  /** The folder holding `harness/` and `test/`. */
  root: string;
  conf: Test262Conf;
}

/** A test file's front matter (the parts a runner needs). */
export interface TestMeta {
  includes: string[];
  flags: string[];
  features: string[];
  negative?: { phase: string; type: string };
}

/** One test in one mode. */
export interface TestRun extends EngineRun, Expectation {
  /** Path under the snapshot, e.g. `test/built-ins/Array/length.js`. */
  path: string;
  mode: 'non-strict' | 'strict' | 'module' | 'raw';
  meta: TestMeta;
}

const CONF_NAME = 'quickjs-ng-test262.conf';

function snapshotDir(): string {
  const fromEnv = process.env.MEP_TEST262_DIR;
  if (fromEnv) return fromEnv;
  for (let dir = REPO_ROOT; ; dir = dirname(dir)) {
    const candidate = join(dir, 'shared', 'reference', 'test262');
    if (existsSync(candidate)) return candidate;
    if (dirname(dir) === dir) break;
  }
  throw new Error('no test262 snapshot: put one in shared/reference/test262/ above the checkout (test262-*.tar.gz and quickjs-ng-test262.conf) or set MEP_TEST262_DIR');
}

/**
 * Finds the snapshot and extracts it the first time (into `.cache/test262/src-<hash>`). A
 * `MEP_TEST262_DIR` that already holds `test262/harness` is used as is.
 */
export function loadSuite(): Suite {
  const dir = snapshotDir();
  const conf = parseConf(readFileSync(join(dir, CONF_NAME), 'utf8'));
  if (existsSync(join(dir, 'test262', 'harness'))) return { root: join(dir, 'test262'), conf };
  const archive = readdirSync(dir).find((f) => /^test262-.*\.tar\.gz$/.test(f));
  if (!archive) throw new Error(`${dir} holds no test262-*.tar.gz`);
  const bytes = readFileSync(join(dir, archive));
  const key = createHash('sha256').update(bytes).digest('hex').slice(0, 16);
  const out = join(REPO_ROOT, '.cache', 'test262', `src-${key}`);
  if (!existsSync(join(out, '.complete'))) {
    const staging = `${out}.tmp-${process.pid}`;
    rmSync(staging, { recursive: true, force: true });
    mkdirSync(staging, { recursive: true });
    execFileSync('tar', ['-xzf', join(dir, archive), '-C', staging]);
    writeFileSync(join(staging, '.complete'), archive);
    rmSync(out, { recursive: true, force: true });
    renameSync(staging, out);
  }
  return { root: join(out, 'test262'), conf };
}

/** Every test file of the snapshot (fixtures excluded), as paths like `test/built-ins/…`, sorted. */
export function listTests(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.js') && !e.name.includes('_FIXTURE')) out.push(relative(root, p));
    }
  };
  walk(join(root, 'test'));
  return out.sort();
}

const list = (value: string, rest: string[]): string[] => {
  const inline = /^\[(.*)\]$/.exec(value.trim());
  if (inline) return inline[1]!.split(',').map((s) => s.trim()).filter(Boolean);
  const items: string[] = [];
  for (const line of rest) {
    const m = /^\s*-\s*(.+?)\s*$/.exec(line);
    if (!m) break;
    items.push(m[1]!.replace(/\s+#.*$/, ''));
  }
  return items;
};

/** Reads a test's YAML front matter (the keys a runner needs). */
export function parseMeta(source: string): TestMeta {
  const block = /\/\*---([\s\S]*?)---\*\//.exec(source)?.[1] ?? '';
  const lines = block.split('\n');
  const meta: TestMeta = { includes: [], flags: [], features: [] };
  for (const [i, line] of lines.entries()) {
    const m = /^(\w+):\s*(.*)$/.exec(line);
    if (!m) continue;
    const [, key, value] = m as unknown as [string, string, string];
    const rest = lines.slice(i + 1);
    if (key === 'includes' || key === 'flags' || key === 'features') meta[key] = list(value, rest);
    if (key === 'negative') {
      const field = (name: string): string => rest.map((l) => new RegExp(`^\\s+${name}:\\s*(\\S+)`).exec(l)?.[1]).find(Boolean) ?? '';
      meta.negative = { phase: field('phase'), type: field('type') };
    }
  }
  return meta;
}

/** Why the conf does not run the test at `path`, or null when it does. */
export function confSkip(conf: Test262Conf, path: string, meta: TestMeta): string | null {
  const confPath = `test262/${path}`;
  if (conf.exclude.some((x) => (x.endsWith('/') ? confPath.startsWith(x) : confPath === x)) && !conf.include.some((x) => confPath.startsWith(x))) return 'excluded by the conf';
  for (const f of meta.features) {
    if (conf.skipFeatures.has(f)) return `feature ${f} is skipped by the conf`;
    if (!conf.features.has(f)) return `feature ${f} is not in the conf`;
  }
  return null;
}

/**
 * The runs of the test at `path` under the conf's mode: `default` runs each test once (strict
 * only when it is onlyStrict), `both` (or env MEP_TEST262_MODE=both) runs strict and non-strict.
 */
export function testRuns(suite: Suite, path: string): { runs: TestRun[]; skip: string | null } {
  const file = join(suite.root, path);
  const text = readFileSync(file, 'utf8');
  const meta = parseMeta(text);
  const skip = confSkip(suite.conf, path, meta);
  if (skip) return { runs: [], skip };
  const has = (f: string): boolean => meta.flags.includes(f);
  const includes = has('raw') ? [] : ['assert.js', 'sta.js', ...(has('async') ? ['doneprintHandle.js'] : []), ...meta.includes].map((i) => join(suite.root, 'harness', i));
  const base = { path, file, meta, includes, canBlock: !has('CanBlockIsFalse'), async: has('async'), negative: meta.negative?.type };
  const run = (mode: TestRun['mode']): TestRun => ({ ...base, mode, module: mode === 'module', source: mode === 'strict' ? `"use strict";${text}` : text });
  if (has('module')) return { runs: [run('module')], skip: null };
  if (has('raw')) return { runs: [run('raw')], skip: null };
  const both = (process.env.MEP_TEST262_MODE ?? suite.conf.mode) === 'both';
  if (has('onlyStrict')) return { runs: [run('strict')], skip: null };
  if (has('noStrict') || !both) return { runs: [run('non-strict')], skip: null };
  return { runs: [run('non-strict'), run('strict')], skip: null };
}

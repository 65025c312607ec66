/**
 * The reference for the frontend's parity tests: what the installed `morphir-elm make` (2.82.0,
 * the default command) writes for a project, run from node_modules on a copy of it (morphir-elm
 * writes `morphir-hashes.json` beside its IR, never in the repository). Each project is compiled
 * once per test process; nothing is cached on disk.
 */
import { execFile } from 'node:child_process';
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../../testing/built.ts';

const run = promisify(execFile);
const made = new Map<string, Promise<Record<string, unknown>>>();

/** The morphir-elm command line script of the installed package. */
export const MORPHIR_ELM_CLI = join(REPO_ROOT, 'node_modules', 'morphir-elm', 'cli', 'morphir-elm.js');

async function make(projectDir: string): Promise<Record<string, unknown>> {
  const work = await mkdtemp(join(tmpdir(), 'mep-morphir-elm-make-'));
  try {
    await cp(projectDir, work, { recursive: true, filter: (source) => !/morphir-(ir|hashes)\.json$/.test(source) });
    try {
      await run(process.execPath, [MORPHIR_ELM_CLI, 'make', '-p', '.', '-o', 'morphir-ir.json'], { cwd: work, maxBuffer: 64 * 1024 * 1024 });
    } catch (error) {
      const { stdout, stderr } = error as { stdout?: string; stderr?: string };
      throw new Error(`morphir-elm make failed on a copy of ${projectDir}:\n${String(stderr ?? '')}${String(stdout ?? '').slice(-2000)}`);
    }
    return JSON.parse(await readFile(join(work, 'morphir-ir.json'), 'utf8')) as Record<string, unknown>;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/**
 * The IR `morphir-elm make` writes for the project in `projectDir` (started on first call, shared
 * by later calls of this process).
 *
 * @example
 * const reference = await morphirElmMake('fixtures/ir/showcase');
 */
export function morphirElmMake(projectDir: string): Promise<Record<string, unknown>> {
  const key = resolve(projectDir);
  let pending = made.get(key);
  if (!pending) {
    pending = make(key);
    made.set(key, pending);
  }
  return pending;
}

/** JSON with object keys sorted at every level: equal documents give equal text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );
}

/**
 * Type-checks a guest entry (and what it imports) with the installed TypeScript compiler API —
 * before any wasm work — against what the guest will run on. A wasm guest: the ES2023 library and
 * the sandbox's globals (types/sandbox.d.ts), no DOM, no Node; a name the sandbox lacks (`fetch`,
 * `process`, `require`, `setImmediate`, …) and a use of `Atomics` are reported saying so
 * and what to use instead. A process build runs on Node.js, so it is checked with the ES2023
 * library and Node's own types (`@types/node`, found from the entry's folder) when they are
 * installed, and else with the sandbox's web globals (which Node also has).
 * Parsed files are kept for the process (internal/source-file-cache.ts) and, given a cache
 * folder, the checker's results per file are kept on disk (TypeScript's incremental build info),
 * so that a rebuild checks only the files that changed and those that depend on them. A check
 * that found nothing leaves a record of the files it read (internal/clean-record.ts): while they
 * are unchanged, TypeScript (a peer dependency, about a second to load) is not even loaded.
 */
import type ts from 'typescript';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Diagnostic } from './diagnostics.ts';
import { absentGlobalUses } from './internal/absent-globals.ts';
import { isStillClean, writeCleanRecord } from './internal/clean-record.ts';
import { cachedSourceFile } from './internal/source-file-cache.ts';
import { LocalErrorCode, MepError } from '../../host/src/protocol/errors.ts';
import { GUEST_LIB, GUEST_TYPES, GUEST_WEB_TYPES, guestTypesText } from './types/guest-globals.ts';
import { ABSENT_LIB_GLOBALS, missingGlobalMessage, sandboxMessage } from './types/missing-globals.ts';
import { PDK_ALIAS } from './bundle.ts';
import { replaceFile } from './internal/replace-file.ts';
import { readSourceText } from './source-files.ts';

/** Options for {@link typecheckGuest}. */
export interface TypecheckOptions {
  /** What the guest runs on (default `wasm`): the sandbox's globals, or Node's for `process`. */
  runtime?: 'wasm' | 'process';
  /** Extra declaration files. */
  extraFiles?: string[];
  /** Paths in diagnostics are made relative to this folder (default: process.cwd()). */
  cwd?: string;
  /** Folder for the incremental build info (one file per entry); none: no results kept on disk. */
  cacheDir?: string;
}

const sha = (text: string): string => createHash('sha256').update(text).digest('hex').slice(0, 16);

let typescript: Promise<typeof ts> | undefined;

/** How many entries' programs a process keeps alive (the most recently checked). */
const LIVE_PROGRAMS = 8;
const livePrograms = new Map<string, ts.EmitAndSemanticDiagnosticsBuilderProgram>();

/**
 * The clean record of a check, per entry, runtime, guest globals, PDK and this module (the
 * compiler options and the messages): a changed mep-runtime never trusts a record an older one wrote.
 */
function cleanRecordPath(cacheDir: string, rootNames: string[], runtime: 'wasm' | 'process'): string {
  return join(cacheDir, `${sha([...rootNames, runtime, guestTypesText(), ...Object.values(PDK_ALIAS), readFileSync(fileURLToPath(import.meta.url), 'utf8'), JSON.stringify(ABSENT_LIB_GLOBALS)].join('\0'))}.clean.json`);
}

/** Loads the TypeScript compiler on first use; `ERR_BUILD` saying what to do when it is absent. */
function loadTypescript(entry: string): Promise<typeof ts> {
  typescript ??= import('typescript').then(
    (m) => (m as { default?: typeof ts }).default ?? (m as unknown as typeof ts),
    (cause: unknown) => {
      typescript = undefined;
      throw new MepError(
        LocalErrorCode.Build,
        `cannot type-check ${entry}: the 'typescript' package is not installed where mep-runtime can load it (${String(cause)}); install it with 'npm install --save-dev typescript', or build without the check with 'mep build --no-typecheck'`,
        { cause },
      );
    },
  );
  return typescript;
}

/** `@types/node`'s entry declaration file as seen from `entry`'s folder, or undefined when it is not installed there. */
function nodeTypesFrom(entry: string): string | undefined {
  try {
    return join(dirname(createRequire(entry).resolve('@types/node/package.json')), 'index.d.ts');
  } catch {
    return undefined;
  }
}

/**
 * True when a recorded clean check of `entry` still holds (its files unchanged), without loading
 * TypeScript. One source built for both runtimes is checked once: what checks against the
 * sandbox's globals (ES2023 and web APIs that Node has too) checks for Node, so a clean wasm
 * check stands for the process build as well.
 */
export function checkedClean(entry: string, options: TypecheckOptions = {}): boolean {
  if (!options.cacheDir) return false;
  const runtime = options.runtime ?? 'wasm';
  const extra = options.extraFiles ?? [];
  const wasmRecord = cleanRecordPath(options.cacheDir, [entry, GUEST_TYPES, ...extra], 'wasm');
  if (runtime === 'wasm') return isStillClean(wasmRecord);
  const globals = nodeTypesFrom(entry) ?? GUEST_WEB_TYPES;
  return isStillClean(cleanRecordPath(options.cacheDir, [entry, globals, ...extra], 'process')) || isStillClean(wasmRecord);
}

/**
 * Returns the type and syntax errors of `entry` (empty when it checks), with file, line, column.
 * Throws `ERR_BUILD` when the check has to run and TypeScript is not installed.
 *
 * @example
 * const problems = await typecheckGuest('ext/main.ts', { cacheDir: '.cache/typecheck' });
 */
export async function typecheckGuest(entry: string, options: TypecheckOptions = {}): Promise<Diagnostic[]> {
  const runtime = options.runtime ?? 'wasm';
  const nodeTypes = runtime === 'process' ? nodeTypesFrom(entry) : undefined;
  const globals = runtime === 'wasm' ? GUEST_TYPES : (nodeTypes ?? GUEST_WEB_TYPES);
  const rootNames = [entry, globals, ...(options.extraFiles ?? [])];
  const recordPath = options.cacheDir ? cleanRecordPath(options.cacheDir, rootNames, runtime) : undefined;
  if (checkedClean(entry, options)) return [];
  const ts = await loadTypescript(entry);
  const compilerOptions: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    // No DOM and no Node unless a process build has Node's types (the root file above).
    lib: [...GUEST_LIB],
    types: [],
    allowImportingTsExtensions: true,
    resolveJsonModule: true,
    isolatedModules: true,
    skipLibCheck: true,
    esModuleInterop: true,
    // From the npm package the PDK is compiled JavaScript: the checker reads the .d.ts beside it.
    paths: Object.fromEntries(Object.entries(PDK_ALIAS).map(([k, v]) => [k, [v.replace(/\.js$/, '.d.ts')]])),
  };
  if (options.cacheDir) {
    mkdirSync(options.cacheDir, { recursive: true });
    Object.assign(compilerOptions, { incremental: true, tsBuildInfoFile: join(options.cacheDir, `${sha([...rootNames, runtime].join('\0'))}.tsbuildinfo`) });
  }
  const host = ts.createIncrementalCompilerHost(compilerOptions);
  const programKey = [...rootNames, runtime, options.cacheDir ?? ''].join('\0');
  // Regular files of a bounded size only: a link to /dev/zero or a FIFO is refused (source-files.ts).
  host.readFile = readSourceText;
  const getSourceFile = host.getSourceFile.bind(host);
  // The build info appears by rename, so a concurrent build never reads half of it.
  host.writeFile = (f, text) => {
    replaceFile(f, text);
  };
  host.getSourceFile = (f, lang, ...rest) => cachedSourceFile(f, lang, () => getSourceFile(f, lang, ...rest));
  // The last program of this entry stays alive in the process (a watch, a test run): the next
  // check reuses its structure and the results of every file that did not change; the first one
  // in a process starts from the build info on disk.
  const previous = livePrograms.get(programKey) ?? (options.cacheDir ? ts.readBuilderProgram(compilerOptions, host) : undefined);
  const program = ts.createEmitAndSemanticDiagnosticsBuilderProgram(rootNames, compilerOptions, host, previous as ts.EmitAndSemanticDiagnosticsBuilderProgram | undefined);
  livePrograms.delete(programKey);
  livePrograms.set(programKey, program);
  if (livePrograms.size > LIVE_PROGRAMS) livePrograms.delete(livePrograms.keys().next().value as string);
  const all = [...program.getSyntacticDiagnostics(), ...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics(), ...program.getSemanticDiagnostics()];
  const cwd = options.cwd ?? process.cwd();
  const locate = (file: ts.SourceFile, start: number): Omit<Diagnostic, 'message'> => {
    const { line, character } = file.getLineAndCharacterOfPosition(start);
    return { file: relative(cwd, file.fileName), line: line + 1, column: character + 1 };
  };
  const problems = all.map((d): Diagnostic => {
    const message = ts.flattenDiagnosticMessageText(d.messageText, '\n');
    if (!d.file || d.start === undefined) return { file: relative(cwd, entry), line: 1, column: 1, message: `TS${d.code}: ${message}` };
    const name = d.file.text.slice(d.start, d.start + (d.length ?? 0));
    return { ...locate(d.file, d.start), message: `TS${d.code}: ${missingGlobalMessage(d.code, name, message, runtime, nodeTypes !== undefined) ?? message}` };
  });
  if (runtime === 'wasm') problems.push(...absentGlobalUses(ts, program.getProgram(), ABSENT_LIB_GLOBALS, (name) => sandboxMessage(name) ?? name, locate));
  problems.sort((a, b) => (a.file === b.file ? a.line - b.line || a.column - b.column : a.file < b.file ? -1 : 1));
  if (options.cacheDir) program.emit(); // noEmit: writes the build info only
  if (recordPath && problems.length === 0) {
    const read = program.getSourceFiles().filter((f) => !program.getProgram().isSourceFileDefaultLibrary(f));
    writeCleanRecord(recordPath, read.map((f) => resolve(f.fileName)));
  }
  return problems;
}

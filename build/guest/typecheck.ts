/**
 * Type-checks a guest entry (and what it imports) with the installed TypeScript compiler API,
 * against the ES2020 library and the guest globals (types/guest-globals.ts) — before any wasm work.
 * Parsed files are kept for the process (internal/source-file-cache.ts) and, given a cache
 * folder, the checker's results per file are kept on disk (TypeScript's incremental build info),
 * so that a rebuild checks only the files that changed and those that depend on them. A check
 * that found nothing leaves a record of the files it read (internal/clean-record.ts): while they
 * are unchanged, TypeScript (a peer dependency, about a second to load) is not even loaded.
 */
import type ts from 'typescript';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Diagnostic } from './diagnostics.ts';
import { isStillClean, writeCleanRecord } from './internal/clean-record.ts';
import { cachedSourceFile } from './internal/source-file-cache.ts';
import { LocalErrorCode, MepError } from '../../host/src/protocol/errors.ts';
import { GUEST_TYPES_DTS, GUEST_TYPES_FILE } from './types/guest-globals.ts';
import { PDK_ALIAS } from './bundle.ts';

/** Virtual path of the guest globals' declarations inside the checker. */
export const GUEST_TYPES = join(dirname(fileURLToPath(import.meta.url)), 'types', GUEST_TYPES_FILE);

/** Options for {@link typecheckGuest}. */
export interface TypecheckOptions {
  /** Extra declaration files (e.g. for a process build, Node's types are not included). */
  extraFiles?: string[];
  /** Paths in diagnostics are made relative to this folder (default: process.cwd()). */
  cwd?: string;
  /** Folder for the incremental build info (one file per entry); none: no results kept on disk. */
  cacheDir?: string;
}

const sha = (text: string): string => createHash('sha256').update(text).digest('hex').slice(0, 16);

let typescript: Promise<typeof ts> | undefined;

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

/**
 * Returns the type and syntax errors of `entry` (empty when it checks), with file, line, column.
 * Throws `ERR_BUILD` when the check has to run and TypeScript is not installed.
 *
 * @example
 * const problems = await typecheckGuest('ext/main.ts', { cacheDir: '.cache/typecheck' });
 */
export async function typecheckGuest(entry: string, options: TypecheckOptions = {}): Promise<Diagnostic[]> {
  const rootNames = [entry, GUEST_TYPES, ...(options.extraFiles ?? [])];
  // The record is per entry, guest globals, PDK and this module (the compiler options below): a
  // changed mep-runtime never trusts a record an older one wrote.
  const recordPath = options.cacheDir
    ? join(options.cacheDir, `${sha([...rootNames, GUEST_TYPES_DTS, ...Object.values(PDK_ALIAS), readFileSync(fileURLToPath(import.meta.url), 'utf8')].join('\0'))}.clean.json`)
    : undefined;
  if (recordPath && isStillClean(recordPath)) return [];
  const ts = await loadTypescript(entry);
  const compilerOptions: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2020,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    // ES2020 plus the later library pieces the engine provides: polyfills (at, findLast, toSorted,
    // hasOwn, replaceAll, Promise.any) and Error's `cause` option (accepted, ignored by QuickJS).
    lib: ['lib.es2020.d.ts', 'lib.es2021.string.d.ts', 'lib.es2021.promise.d.ts', 'lib.es2022.array.d.ts', 'lib.es2022.object.d.ts', 'lib.es2022.error.d.ts', 'lib.es2023.array.d.ts'],
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
    Object.assign(compilerOptions, { incremental: true, tsBuildInfoFile: join(options.cacheDir, `${sha(rootNames.join('\0'))}.tsbuildinfo`) });
  }
  const host = ts.createIncrementalCompilerHost(compilerOptions);
  const getSourceFile = host.getSourceFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  const readFile = host.readFile.bind(host);
  const isGuestTypes = (f: string): boolean => resolve(f) === GUEST_TYPES;
  const guestTypes = (lang: ts.ScriptTarget | ts.CreateSourceFileOptions): ts.SourceFile => {
    const file = ts.createSourceFile(GUEST_TYPES, GUEST_TYPES_DTS, lang, true);
    (file as ts.SourceFile & { version: string }).version = sha(GUEST_TYPES_DTS); // what the builder compares
    return file;
  };
  // The build info appears by rename, so a concurrent build never reads half of it.
  host.writeFile = (f, text) => {
    const tmp = `${f}.tmp-${process.pid}`;
    writeFileSync(tmp, text);
    renameSync(tmp, f);
  };
  host.fileExists = (f) => isGuestTypes(f) || fileExists(f);
  host.readFile = (f) => (isGuestTypes(f) ? GUEST_TYPES_DTS : readFile(f));
  host.getSourceFile = (f, lang, ...rest) =>
    isGuestTypes(f) ? cachedSourceFile(f, lang, () => guestTypes(lang), 'guest-globals') : cachedSourceFile(f, lang, () => getSourceFile(f, lang, ...rest));
  const program = ts.createIncrementalProgram({ rootNames, options: compilerOptions, host });
  const all = [...program.getSyntacticDiagnostics(), ...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics(), ...program.getSemanticDiagnostics()];
  if (options.cacheDir) program.emit(); // noEmit: writes the build info only
  if (recordPath && all.length === 0) {
    const read = program.getSourceFiles().filter((f) => !program.getProgram().isSourceFileDefaultLibrary(f) && !isGuestTypes(f.fileName));
    writeCleanRecord(recordPath, read.map((f) => resolve(f.fileName)));
  }
  const cwd = options.cwd ?? process.cwd();
  return all.map((d) => {
    const message = ts.flattenDiagnosticMessageText(d.messageText, '\n');
    if (!d.file || d.start === undefined) return { file: relative(cwd, entry), line: 1, column: 1, message: `TS${d.code}: ${message}` };
    const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
    return { file: relative(cwd, d.file.fileName), line: line + 1, column: character + 1, message: `TS${d.code}: ${message}` };
  });
}

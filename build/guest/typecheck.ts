/**
 * Type-checks a guest entry (and what it imports) with the installed TypeScript compiler API,
 * against the ES2020 library and the guest globals in types/mep-guest.d.ts — before any wasm work.
 */
import ts from 'typescript';
import { fileURLToPath } from 'node:url';
import { dirname, join, relative } from 'node:path';
import type { Diagnostic } from './diagnostics.ts';

/** The guest globals' declaration file shipped with the build. */
export const GUEST_TYPES = join(dirname(fileURLToPath(import.meta.url)), 'types', 'mep-guest.d.ts');

/** Options for {@link typecheckGuest}. */
export interface TypecheckOptions {
  /** Extra declaration files (e.g. for a process build, Node's types are not included). */
  extraFiles?: string[];
  /** Paths in diagnostics are made relative to this folder (default: process.cwd()). */
  cwd?: string;
}

/**
 * Returns the type and syntax errors of `entry` (empty when it checks), with file, line, column.
 *
 * @example
 * const problems = typecheckGuest('ext/main.ts');
 */
export function typecheckGuest(entry: string, options: TypecheckOptions = {}): Diagnostic[] {
  const compilerOptions: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2020,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ['lib.es2020.d.ts'],
    types: [],
    allowImportingTsExtensions: true,
    resolveJsonModule: true,
    isolatedModules: true,
    skipLibCheck: true,
    esModuleInterop: true,
  };
  const program = ts.createProgram([entry, GUEST_TYPES, ...(options.extraFiles ?? [])], compilerOptions);
  const all = [...program.getSyntacticDiagnostics(), ...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics(), ...program.getSemanticDiagnostics()];
  const cwd = options.cwd ?? process.cwd();
  return all.map((d) => {
    const message = ts.flattenDiagnosticMessageText(d.messageText, '\n');
    if (!d.file || d.start === undefined) return { file: relative(cwd, entry), line: 1, column: 1, message: `TS${d.code}: ${message}` };
    const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
    return { file: relative(cwd, d.file.fileName), line: line + 1, column: character + 1, message: `TS${d.code}: ${message}` };
  });
}

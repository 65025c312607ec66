/**
 * Uses of globals the ES library declares but the sandbox's engine lacks (`Atomics`):
 * TypeScript accepts them (they are in lib.es5/es2017), the guest would fail at run time with a
 * ReferenceError, so the check reports each use in the user's own code. A use is a value
 * reference that resolves to the library's declaration; a type position (`Intl.NumberFormatOptions`),
 * a property of the same name or a local binding is not one.
 */
import type ts from 'typescript';
import type { Diagnostic } from '../diagnostics.ts';

/** Every value use of `names` in the program's own (not library, not node_modules) source files. */
export function absentGlobalUses(
  typescript: typeof ts,
  program: ts.Program,
  names: readonly string[],
  message: (name: string) => string,
  locate: (file: ts.SourceFile, start: number) => Omit<Diagnostic, 'message'>,
): Diagnostic[] {
  const checker = program.getTypeChecker();
  const wanted = new Set(names);
  const out: Diagnostic[] = [];
  const fromLibrary = (symbol: ts.Symbol | undefined): boolean =>
    symbol?.declarations !== undefined && symbol.declarations.length > 0 && symbol.declarations.every((d) => program.isSourceFileDefaultLibrary(d.getSourceFile()));
  const visit = (node: ts.Node): void => {
    if (typescript.isTypeNode(node)) return; // types only: nothing runs
    if (typescript.isIdentifier(node) && wanted.has(node.text) && fromLibrary(checker.getSymbolAtLocation(node))) {
      out.push({ ...locate(node.getSourceFile(), node.getStart()), message: message(node.text) });
    }
    typescript.forEachChild(node, visit);
  };
  for (const file of program.getSourceFiles()) {
    if (file.isDeclarationFile || program.isSourceFileDefaultLibrary(file) || /[\\/]node_modules[\\/]/.test(file.fileName)) continue;
    visit(file);
  }
  return out;
}

/** `mep compile <file>`: source → Morphir IR through a frontend extension. */
import { readFile } from 'node:fs/promises';
import { extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { LocalErrorCode, MepError } from '../../protocol/errors.ts';
import type { CompileParams } from '../../protocol/index.ts';
import type { Session } from '../../session/session.ts';
import { ExitCode, UsageError } from '../exit-codes.ts';
import type { Command } from './command.ts';
import { onePositional, parseFlags } from './command.ts';
import type { ResolvedExtension } from './extension-argument.ts';
import { OPERATION_FLAGS, OPERATION_HELP, hasErrors, printDiagnostics, runOperation, scrubDiagnostics, withJsonErrors, writeJsonOutput } from './operation.ts';
import { parseOptionFlags } from './options.ts';

/** The package name of a one-file compile (MEP 0.1, single-file slice: no package manifest). */
const ONE_FILE_PACKAGE = 'local/example';

/** The language id: `--lang`, else the one the chosen provider claims for the file extension. */
function languageFor(session: Session, provider: ResolvedExtension, lang: string | undefined, fileExtension: string): string {
  if (lang) return lang;
  if (provider.language) return provider.language;
  const languages = session.initializeResult?.capabilities.frontend?.languages ?? [];
  const claimed = languages.find((l) => (l.fileExtensions ?? []).includes(fileExtension));
  if (claimed) return claimed.id;
  throw new MepError(LocalErrorCode.Usage, `Extension '${session.extension}' claims no language for '${fileExtension}' files (it offers: ${languages.map((l) => l.id).join(', ') || 'none'}). Pass --lang.`, {
    data: { extension: session.extension, fileExtension },
  });
}

export const compileCommand: Command = {
  summary: 'compile a source file to Morphir IR with a frontend extension',
  help: `Usage: mep compile <file> [--lang L] [--output IR.json] [--extension EXT] [--option k=v]… [--json] [--verbose]

Sends the file's text (as a source document: its file:// URI, version 1) to a frontend with
morphir.frontend.compile and prints its diagnostics like a compiler, with the source line and a
caret. The language comes from --lang, or from the file extension the frontend claims
(.elm → elm). Without --extension the frontend is the installed extension that claims it.
Without --output the IR is printed on stdout.

  --lang L          the language id, e.g. elm
  --output FILE     write the Morphir IR here (replaced atomically; untouched on failure)
${OPERATION_HELP}`,
  async run(argv, io) {
    const { values, positionals } = parseFlags(argv, { lang: { type: 'string' }, output: { type: 'string' }, ...OPERATION_FLAGS }, 'compile');
    return withJsonErrors(io, values.json, async () => {
      const file = resolve(io.cwd, onePositional(positionals, 'source file', 'compile'));
      io.verbose = Boolean(values.verbose);
      const options = parseOptionFlags(values.option ?? []);
      let text: string;
      try {
        text = await readFile(file, 'utf8');
      } catch (error) {
        throw new UsageError(`cannot read the source file ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}).`);
      }
      const fileExtension = extname(file);
      if (!values.lang && !fileExtension) throw new UsageError(`${file} has no file extension; pass --lang.`);
      let languageId = values.lang ?? '';
      const { result, extension, redactor } = await runOperation(io, values, { kind: 'frontend', ...(values.lang ? { language: values.lang } : { fileExtension }) }, (session, signal, provider) => {
        languageId = languageFor(session, provider, values.lang, fileExtension);
        const params: CompileParams = {
          languageId,
          sources: { documents: [{ uri: pathToFileURL(file).href, languageId, version: 1, text }] },
          package: { name: ONE_FILE_PACKAGE },
          ...(Object.keys(options).length ? { options } : {}),
        };
        return session.compile(params, { signal });
      });
      const output = values.output && result.success && result.ir ? await writeJsonOutput(io, values.output, result.ir) : null;
      const diagnostics = scrubDiagnostics(result.diagnostics, redactor);
      if (values.json) {
        io.out(
          JSON.stringify(
            { success: result.success, extension, languageId, file, irVersion: result.irVersion ?? null, modules: result.modules, output, diagnostics, ...(values.output ? {} : { ir: result.ir ?? null }) },
            null,
            2,
          ),
        );
      } else {
        printDiagnostics(io, diagnostics);
        if (!result.success) io.err(`Compilation of ${file} failed (${extension}).`);
        else if (output) io.out(`Compiled ${file} (${languageId}) with ${extension}: ${result.modules.length} module${result.modules.length === 1 ? '' : 's'}, IR ${result.irVersion}, written to ${output}.`);
        else io.out(JSON.stringify(result.ir, null, 2));
      }
      return hasErrors(result) ? ExitCode.Diagnostics : ExitCode.Ok;
    });
  },
};

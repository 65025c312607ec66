/**
 * `mep compile <dir>` and `mep compile <file>…`: sources → Morphir IR through a frontend
 * extension. A folder is a Morphir project (`morphir.json`), compiled in one request with every
 * source file and written to `morphir-ir.json` in it; files are MEP 0.1's one-file path (the
 * package `local/example` synthesized), grown to several files in one request.
 */
import { stat } from 'node:fs/promises';
import { extname, join, resolve } from 'node:path';
import { LocalErrorCode, MepError } from '../../protocol/errors.ts';
import type { CompileParams, CompileResult } from '../../protocol/index.ts';
import { compileProject, compileRequestForFiles, readMorphirJson, readMorphirProject, readSourceFolders } from '../../project/index.ts';
import { useBaselineWasmTier } from '../../transport/wasm/node/wasm-tier.ts';
import { BASELINE_TIER_MAX_SOURCE_BYTES, chooseProjectTier } from './compile-tier.ts';
import type { Session } from '../../session/session.ts';
import { ExitCode, UsageError } from '../exit-codes.ts';
import { closeLastSession } from '../with-session.ts';
import type { Command } from './command.ts';
import { parseFlags } from './command.ts';
import type { ResolvedExtension } from './extension-argument.ts';
import { OPERATION_HELP, hasErrors, printDiagnostics, runOperation, scrubDiagnostics, withJsonErrors, writeJsonOutput } from './operation.ts';
import { COMPILE_FLAGS } from './operation-flags.ts';
import { parseOptionFlags } from './options.ts';
import { watchCompile } from './compile-watch.ts';

/** The language id: `--lang`, else the one the chosen provider claims for the file extension. */
function languageFor(session: Session, provider: ResolvedExtension, lang: string | undefined, fileExtension: string): string {
  if (lang) return lang;
  if (provider.language) return provider.language;
  const languages = session.initializeResult?.capabilities.frontend?.languages ?? [];
  if (fileExtension === '') {
    // A project without --lang: the frontend's only language.
    const [only, ...more] = languages;
    if (only !== undefined && more.length === 0) return only.id;
    throw new MepError(LocalErrorCode.Usage, `Extension '${session.extension}' claims ${languages.length === 0 ? 'no language' : `the languages ${languages.map((l) => l.id).join(', ')}`}: pass --lang to say which the project is written in.`, {
      data: { extension: session.extension },
    });
  }
  const claimed = languages.find((l) => (l.fileExtensions ?? []).includes(fileExtension));
  if (claimed) return claimed.id;
  throw new MepError(LocalErrorCode.Usage, `Extension '${session.extension}' claims no language for '${fileExtension}' files (it offers: ${languages.map((l) => l.id).join(', ') || 'none'}). Pass --lang.`, {
    data: { extension: session.extension, fileExtension },
  });
}

/** The file extensions the provider claims for `languageId` (`.elm` for elm when it names none). */
function extensionsFor(session: Session, languageId: string): string[] {
  const claimed = session.initializeResult?.capabilities.frontend?.languages.find((l) => l.id === languageId)?.fileExtensions ?? [];
  return claimed.length > 0 ? claimed : languageId === 'elm' ? ['.elm'] : [];
}

const isFolder = (path: string): Promise<boolean> => stat(path).then((s) => s.isDirectory(), () => false);

/** `--max-sources N`: a whole number from 1 to 10,000,000, or undefined when not given. */
function maxSourcesOf(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1 || n > 10_000_000) throw new UsageError(`--max-sources expects a whole number from 1 to 10000000, got '${text}'.`);
  return n;
}

export const compileCommand: Command = {
  summary: 'compile a Morphir project or source files to Morphir IR with a frontend extension',
  help: `Usage: mep compile <dir> [--output IR.json] [--lang L] [--extension EXT] [--option k=v]… [--watch] [--json] [--verbose]
       mep compile <file>… [--output IR.json] [--lang L] [--extension EXT] [--option k=v]… [--json] [--verbose]

A folder is a Morphir project: its morphir.json names the package ("name"), where the sources
are ("sourceDirectory"), which modules are public ("exposedModules") and IR files of other
packages ("localDependencies"). Every source file under sourceDirectory goes to the frontend in
one morphir.frontend.compile request, by value, and the IR is written to morphir-ir.json in the
project. Files are compiled together in one request in the package local/example, every module
public (MEP 0.1's one-file path); their IR is printed on stdout unless --output is given.

Diagnostics are printed like a compiler's (file:line:col, the source line and a caret). The IR
is written atomically and only when the compile succeeded: a failed compile leaves an earlier
file as it was. The language comes from --lang, else from the file extension the frontend claims
(.elm → elm); for a project, the only language the frontend given (or the only frontend
installed) claims — with several, pass --lang. Without --extension the frontend is the installed extension that
claims the language. Options (--option typesOnly=true, --option irVersion=4) go to the frontend.

To a frontend that advertises incremental compiles, a project's compile sends what the last one
returned per module (kept in <dir>/.mep/compile-baseline.json), and only changed modules are
compiled again; the IR is the same as a full compile's.

  --watch           keep the frontend running, and compile the project again whenever a source
                    file or morphir.json changes, printing each outcome with its time; a failed
                    compile leaves the last good IR in place. Ctrl+C stops.
  --lang L          the language id, e.g. elm
  --output FILE     write the Morphir IR here (default: <dir>/morphir-ir.json for a project)
  --source-root DIR allow the project's sourceDirectory to be in DIR, outside the project (a
                    monorepo's ../shared/src); repeatable. Without it such a folder is refused:
                    morphir.json comes with the sources, so only you can allow a folder beyond them
  --max-sources N   send at most N source files of a project (default 10000); their bytes with
                    the local dependencies are bounded by --max-message, which the request is
${OPERATION_HELP}`,
  async run(argv, io) {
    const { values, positionals } = parseFlags(argv, COMPILE_FLAGS, 'compile');
    return withJsonErrors(io, values.json, async () => {
      if (positionals.length === 0) throw new UsageError(`expected a project folder or source files. Run 'mep compile --help'.`);
      io.verbose = Boolean(values.verbose);
      const options = parseOptionFlags(values.option ?? [], io.cwd);
      const maxSourceFiles = maxSourcesOf(values['max-sources']);
      const sourceRoots = (values['source-root'] ?? []).map((root) => resolve(io.cwd, root));
      const paths = positionals.map((p) => resolve(io.cwd, p));
      const folders = await Promise.all(paths.map(isFolder));
      if (folders.some(Boolean) && paths.length > 1) throw new UsageError(`pass one project folder, or source files: ${positionals.join(' ')} mixes them. Run 'mep compile --help'.`);
      const projectDir = folders[0] ? paths[0] : undefined;
      let fileExtension = '';
      // Read before any extension starts: a missing file is the user's mistake, not the provider's.
      const files = projectDir === undefined ? await compileRequestForFiles(paths, values.lang ?? '') : undefined;
      if (projectDir === undefined) {
        const kinds = [...new Set(paths.map((p) => extname(p)))];
        if (!values.lang && kinds.includes('')) throw new UsageError(`${paths.find((p) => extname(p) === '')} has no file extension; pass --lang.`);
        if (!values.lang && kinds.length > 1) throw new UsageError(`the files have different extensions (${kinds.join(', ')}); pass --lang.`);
        fileExtension = kinds[0];
      }
      // Fail on a broken morphir.json before any extension starts.
      const manifest = projectDir === undefined ? undefined : (await readMorphirJson(projectDir)).manifest;
      // A project's language: --lang, else the only language of the frontend given or installed.
      const language = values.lang;
      if (values.watch) {
        if (projectDir === undefined) throw new UsageError(`--watch compiles a project folder (with morphir.json), not files. Run 'mep compile --help'.`);
        if (values.json) throw new UsageError(`--watch prints a line per compile for a person; it does not combine with --json.`);
        await runOperation(io, values, { kind: 'frontend', ...(language ? { language } : {}) }, async (session, signal, provider) => {
          const id = languageFor(session, provider, language, fileExtension);
          const fileExtensions = extensionsFor(session, id);
          const limits = { sourceRoots, ...(maxSourceFiles === undefined ? {} : { maxSourceFiles }), ...(provider.spec.limits?.maxMessageBytes === undefined ? {} : { maxSourceBytes: provider.spec.limits.maxMessageBytes }) };
          const output = values.output ? { output: resolve(io.cwd, values.output) } : {};
          await watchCompile(io, {
            projectDir,
            output: output.output ?? join(resolve(projectDir), 'morphir-ir.json'),
            fileExtensions,
            signal,
            sourceFolders: async () => (await readSourceFolders(projectDir, { languageId: id, fileExtensions, ...limits })).folders,
            compile: async (baseline) => compileProject(session, await readMorphirProject(projectDir, { languageId: id, fileExtensions, ...limits }), { signal, options, baseline, ...output }),
            scrub: (diagnostics) => scrubDiagnostics(diagnostics, io.redactor),
          });
        });
        io.err('mep compile: stopped watching.');
        return ExitCode.Ok;
      }
      // A small project is one short call: its wasm frontend runs on V8's baseline tier (compile-tier.ts).
      if (manifest !== undefined) await chooseProjectTier(projectDir as string, manifest.sourceDirectory);
      else if ((files?.sources?.documents ?? []).reduce((n, d) => n + d.text.length, 0) <= BASELINE_TIER_MAX_SOURCE_BYTES) useBaselineWasmTier();
      let params: CompileParams | undefined;
      let languageId = language ?? '';
      let output: string | null = null;
      const { result, extension, redactor } = await runOperation<CompileResult>(io, values, { kind: 'frontend', ...(language ? { language } : projectDir === undefined ? { fileExtension } : {}) }, async (session, signal, provider) => {
        languageId = languageFor(session, provider, language, fileExtension);
        if (projectDir !== undefined) {
          // Sources of the language only, whatever the frontend claims, within the count and the request's size.
          const limits = { sourceRoots, ...(maxSourceFiles === undefined ? {} : { maxSourceFiles }), ...(provider.spec.limits?.maxMessageBytes === undefined ? {} : { maxSourceBytes: provider.spec.limits.maxMessageBytes }) };
          const project = await readMorphirProject(projectDir, { languageId, fileExtensions: extensionsFor(session, languageId), ...limits });
          params = project.params;
          // The session ends as soon as the frontend answered: its worker stops while the IR is written
          // (with --verbose, the session's memory is reported after the call, so it is kept until then).
          const whenAnswered = io.verbose ? undefined : () => void closeLastSession(session, provider.spec.runtime);
          const outcome = await compileProject(session, project, { signal, options, ...(whenAnswered ? { whenAnswered } : {}), ...(values.output ? { output: resolve(io.cwd, values.output) } : {}) });
          output = outcome.output;
          return outcome.result;
        }
        params = { ...files!, languageId, sources: { ...files!.sources, documents: files!.sources!.documents.map((d) => ({ ...d, languageId })) } };
        if (Object.keys(options).length > 0) params.options = options;
        return session.compile(params, { signal });
      });
      if (projectDir === undefined && values.output && result.success && result.ir) output = await writeJsonOutput(io, values.output, result.ir);
      const diagnostics = scrubDiagnostics(result.diagnostics, redactor);
      const sources = new Map((params?.sources?.documents ?? []).map((d) => [d.uri, d.text]));
      const what = projectDir ?? (paths.length === 1 ? paths[0] : `${paths.length} files`);
      if (values.json) {
        const where = projectDir !== undefined ? { project: projectDir } : { files: paths, ...(paths.length === 1 ? { file: paths[0] } : {}) };
        const printed = { success: result.success, extension, languageId, ...where, irVersion: result.irVersion ?? null, modules: result.modules, output, diagnostics };
        await io.json(output === null && projectDir === undefined ? { ...printed, ir: result.ir ?? null } : printed);
      } else {
        printDiagnostics(io, diagnostics, sources);
        const count = `${result.modules.length} module${result.modules.length === 1 ? '' : 's'}`;
        if (!result.success) io.err(`Compilation of ${what} failed (${extension}); nothing was written.`);
        else if (output) io.out(`Compiled ${what} (${languageId}) with ${extension}: ${count}, IR ${result.irVersion}, written to ${output}.`);
        else await io.json(result.ir);
      }
      return hasErrors(result) ? ExitCode.Diagnostics : ExitCode.Ok;
    });
  },
};

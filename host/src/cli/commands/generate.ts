/** `mep generate`: Morphir IR → artifacts through a backend extension, written all-or-nothing. */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { validateArtifacts } from '../../artifacts/validate.ts';
import { writeArtifacts } from '../../artifacts/write.ts';
import { LocalErrorCode, MepError } from '../../protocol/errors.ts';
import { ExitCode, UsageError } from '../exit-codes.ts';
import { renderDiagnostics } from '../render-diagnostics.ts';
import { withSession } from '../with-session.ts';
import { resolveExtensionArgument } from './extension-argument.ts';
import type { Command } from './command.ts';
import { parseFlags } from './command.ts';
import { parseOptionFlags } from './options.ts';

export const generateCommand: Command = {
  summary: 'generate artifacts from Morphir IR with a backend extension',
  help: `Usage: mep generate --target T --input IR.json --output DIR --extension EXT [--option k=v]… [--json] [--verbose]

Sends the IR to the backend with morphir.backend.generate, validates every returned artifact
(safe relative paths, valid content) and only then writes them all to DIR; on any failure nothing
is written.

  --target T        target id, e.g. avro (must be advertised by the extension)
  --input FILE      Morphir IR JSON (morphir-ir.json)
  --output DIR      where artifacts are written
  --extension EXT   the backend: a .wasm module, a .js/.mjs file or an executable
  --option k=v      a generation option; the value is parsed as JSON when valid (repeatable)
  --json            print the result as JSON instead of the human summary
  --verbose         extension identity, timings and the extension's log`,
  async run(argv, io) {
    const { values, positionals } = parseFlags(
      argv,
      {
        target: { type: 'string' },
        input: { type: 'string' },
        output: { type: 'string' },
        extension: { type: 'string' },
        option: { type: 'string', multiple: true },
        json: { type: 'boolean' },
        verbose: { type: 'boolean' },
      },
      'generate',
    );
    if (positionals.length > 0) throw new UsageError(`unexpected argument ${positionals[0]}. Run 'mep generate --help'.`);
    for (const flag of ['target', 'input', 'output', 'extension'] as const) {
      if (!values[flag]) throw new UsageError(`--${flag} is required. Run 'mep generate --help'.`);
    }
    io.verbose = Boolean(values.verbose);
    const options = parseOptionFlags(values.option ?? []);
    const input = resolve(io.cwd, values.input as string);
    const ir = await readJson(input);
    if (typeof ir !== 'object' || ir === null || Array.isArray(ir)) {
      throw new MepError(LocalErrorCode.Usage, `The input ${input} is not a JSON object; pass a Morphir IR distribution (morphir-ir.json).`);
    }
    const spec = await resolveExtensionArgument(values.extension as string, io);
    const target = values.target as string;

    const { result, extension } = await withSession(spec, io, async (session, signal) => ({
      result: await session.generate({ ir: ir as Record<string, unknown>, target, options }, { signal }),
      extension: session.extension,
    }));
    // MEP 0.1: validate every artifact before writing any of them.
    const files = result.success ? validateArtifacts(extension, result.artifacts) : new Map<string, Uint8Array>();
    const report = result.success ? await writeArtifacts(resolve(io.cwd, values.output as string), files) : undefined;

    if (values.json) {
      io.out(JSON.stringify({ success: result.success, extension, target, outDir: report?.outDir ?? null, written: report?.written ?? [], diagnostics: result.diagnostics }, null, 2));
    } else {
      for (const line of renderDiagnostics(result.diagnostics)) io.err(line);
      if (report) {
        io.out(`Generated ${report.written.length} artifact${report.written.length === 1 ? '' : 's'} (${report.bytes} bytes) in ${report.outDir} with ${extension}:`);
        for (const path of report.written) io.out(`  ${path}`);
      } else {
        io.out(`Generation failed; nothing was written.`);
      }
    }
    const hasErrors = !result.success || result.diagnostics.some((d) => d.severity === 'error');
    return hasErrors ? ExitCode.Diagnostics : ExitCode.Ok;
  },
};

async function readJson(path: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new MepError(LocalErrorCode.Usage, `Cannot read the input ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}. Pass a Morphir IR file with --input.`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new MepError(LocalErrorCode.Usage, `The input ${path} is not valid JSON (${(error as Error).message}); pass a Morphir IR file (morphir-ir.json).`);
  }
}

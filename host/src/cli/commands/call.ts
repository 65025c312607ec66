/**
 * `mep call <extension> <method> [params]`: one request to an extension from the shell, its
 * result printed as JSON; `--repeat N` times it; `--raw <export>` calls any export of any Extism
 * plugin with bytes in and out, as `extism call` does.
 */
import { resolve } from 'node:path';
import { LocalErrorCode, MepError } from '../../protocol/errors.ts';
import { Method } from '../../protocol/index.ts';
import type { ProgressParams } from '../../protocol/index.ts';
import { JsonText } from '../../protocol/json-text.ts';
import { parseJson } from '../../protocol/json-parse.ts';
import { DEFAULT_LIMITS, HOST_FILE_LIMITS } from '../../protocol/limits.ts';
import { readRegularFile, readTextFile } from '../../files/regular-file.ts';
import { openExportCall } from '../../registry/launch.ts';
import type { Session } from '../../session/session.ts';
import { ExitCode, UsageError } from '../exit-codes.ts';
import { createExtensionLogPrinter } from '../extension-log.ts';
import type { Io } from '../io.ts';
import type { Command } from './command.ts';
import { parseFlags } from './command.ts';
import { resolveExtensionArgument } from './extension-argument.ts';
import { parseLimitFlags } from './limit-flags.ts';
import { OPERATION_FLAGS, OPERATION_HELP, readJsonInput, runOperation, withJsonErrors } from './operation.ts';
import { parseOptionFlags } from './options.ts';
import { timingLine } from './timing.ts';

/** Short names for the MEP methods (`mep call x.wasm generate …`). */
const ALIASES: Record<string, string> = {
  generate: Method.BackendGenerate,
  compile: Method.FrontendCompile,
  validate: Method.ValidatorValidate,
  transform: Method.TransformTransform,
  describe: Method.Describe,
  ping: Method.Ping,
  info: Method.Info,
  capabilities: Method.Capabilities,
};

const { extension: _extension, ...CALL_OPERATION_FLAGS } = OPERATION_FLAGS;
const CALL_FLAGS = {
  ...CALL_OPERATION_FLAGS,
  ir: { type: 'string' },
  repeat: { type: 'string' },
  raw: { type: 'string' },
  input: { type: 'string' },
} as const;

/** The params argument: inline JSON, `@file`, or `@-` for stdin. */
async function readParams(io: Io, argument: string | undefined, maxStdinBytes: number): Promise<Record<string, unknown>> {
  if (argument === undefined) return {};
  let text = argument;
  let where = 'the params argument';
  if (argument.startsWith('@')) {
    const file = argument.slice(1);
    where = file === '-' ? 'stdin' : resolve(io.cwd, file);
    try {
      text = file === '-' ? new TextDecoder().decode(await io.readStdin(maxStdinBytes, 'maxMessageBytes')) : await readTextFile(where, { what: 'the params', maxBytes: HOST_FILE_LIMITS.inputBytes, limit: 'maxMessageBytes' });
    } catch (error) {
      if (error instanceof MepError) throw error;
      throw new UsageError(`cannot read the params ${where}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}.`);
    }
  }
  let params: unknown;
  try {
    params = parseJson(text, 'data');
  } catch (error) {
    throw new UsageError(`${where} is not JSON (${(error as Error).message}); pass a JSON object, e.g. '{"target":"avro"}', or @params.json.`);
  }
  if (typeof params !== 'object' || params === null || Array.isArray(params)) throw new UsageError(`${where} must be a JSON object (the request's params).`);
  return params as Record<string, unknown>;
}

/** Sends `method` once through the session's own operation (checked before and after) or raw. */
function send(session: Session, method: string, params: Record<string, unknown>, signal: AbortSignal): Promise<unknown> {
  const options = { signal };
  const withOptions = { ...params, options: (params.options as Record<string, unknown> | undefined) ?? {} } as never;
  switch (method) {
    case Method.BackendGenerate: {
      const targets = session.initializeResult?.capabilities.backend?.targets ?? [];
      const target = params.target ?? (targets.length === 1 ? targets[0] : undefined);
      if (target === undefined) throw new UsageError(`${session.extension} has ${targets.length === 0 ? 'no backend targets' : `the targets ${targets.join(', ')}`}: pass "target" in the params.`);
      return session.generate({ ...(withOptions as object), target } as never, options);
    }
    case Method.FrontendCompile:
      return session.compile(params as never, options);
    case Method.ValidatorValidate:
      return session.validate(withOptions, options);
    case Method.TransformTransform:
      return session.transform(withOptions, options);
    case Method.Describe:
      return session.describe(options);
    case Method.Ping:
      return session.ping(options);
    case Method.Info:
      return session.info(options);
    case Method.Capabilities:
      return session.capabilities(options);
    default:
      return session.peer.request(method, params, options);
  }
}

/** A result that reports failure (`success: false` or an error diagnostic) exits 1. */
function failed(result: unknown): boolean {
  if (typeof result !== 'object' || result === null) return false;
  const { success, diagnostics } = result as { success?: unknown; diagnostics?: unknown };
  return success === false || (Array.isArray(diagnostics) && diagnostics.some((d) => (d as { severity?: unknown }).severity === 'error'));
}

function repeatOf(text: string | undefined): number {
  if (text === undefined) return 1;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1 || n > 1_000_000) throw new UsageError(`--repeat expects a whole number from 1 to 1000000, got '${text}'.`);
  return n;
}

async function runRaw(io: Io, extension: string, entry: string, values: { input?: string; repeat?: string; verbose?: boolean } & Parameters<typeof parseLimitFlags>[0]): Promise<number> {
  const repeat = repeatOf(values.repeat);
  const limits = parseLimitFlags(values);
  const { spec } = await resolveExtensionArgument(extension, io, { limits });
  let input: Uint8Array;
  try {
    input = values.input === undefined || values.input === '-' ? await io.readStdin(limits.maxMessageBytes ?? DEFAULT_LIMITS.maxMessageBytes, 'maxMessageBytes') : new Uint8Array(await readRegularFile(resolve(io.cwd, values.input), { what: 'the input', maxBytes: HOST_FILE_LIMITS.inputBytes, limit: 'maxMessageBytes' }));
  } catch (error) {
    if (error instanceof MepError) throw error;
    throw new MepError(LocalErrorCode.Usage, `Cannot read the input ${values.input}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}.`);
  }
  // Its warnings and errors on stderr, the rest with --verbose, as for a session (extension-log.ts).
  const plugin = await openExportCall(spec, entry, createExtensionLogPrinter(io, () => spec.name, io.redactor).sink);
  try {
    const times: number[] = [];
    let output: Uint8Array = new Uint8Array(0);
    for (let i = 0; i < repeat; i++) {
      const started = performance.now();
      output = await plugin.call(input);
      times.push(performance.now() - started);
    }
    io.outBytes(output);
    if (repeat > 1 || values.verbose) io.err(timingLine(`${entry}`, times));
    return ExitCode.Ok;
  } finally {
    await plugin.close();
  }
}

export const callCommand: Command = {
  summary: 'send one request to an extension and print its result as JSON',
  help: `Usage: mep call <extension> <method> [params-json | @params.json | @-] [--ir IR.json] [--option k=v]… [--repeat N] [--json] [--verbose]
       mep call <plugin.wasm> --raw <export> [--input FILE] [--repeat N]

Opens a session (initialize), sends one request and prints its result as JSON on stdout. <method>
is an MEP method name or its short form: generate, compile, validate, transform, describe, ping,
info, capabilities (any other name is sent as it is). The params are a JSON object, inline or from
a file; --ir FILE sets its "ir" (checked to be JSON), --option k=v its "options". A generate
without "target" goes to the extension's only target. Exit 0, or 1 when the result reports
failure (success false or an error diagnostic), 3 when the extension answers with an error.

--raw <export> calls that export of any Extism plugin (a .wasm) with the bytes of --input (or
stdin) and writes its output bytes to stdout, in the same sandbox: no WASI, the limits below.

  --ir FILE         the Morphir IR for the params' "ir"
  --repeat N        send it N times in the same session; prints min/median/max on stderr
  --raw EXPORT      call this export with raw bytes instead of an MEP method
  --input FILE      the bytes for --raw (default: stdin)
${OPERATION_HELP.split('\n').filter((line) => !/^ {2}--extension|^ {20}executable \(default/.test(line)).join('\n')}`,
  async run(argv, io) {
    const { values, positionals } = parseFlags(argv, CALL_FLAGS, 'call');
    io.verbose = Boolean(values.verbose);
    return withJsonErrors(io, values.json, async () => {
      const [extension, method, params, ...rest] = positionals;
      if (extension === undefined) throw new UsageError(`expected an extension and a method. Run 'mep call --help'.`);
      if (values.raw !== undefined) {
        if (method !== undefined) throw new UsageError(`--raw calls an export; give no method (got '${method}').`);
        return runRaw(io, extension, values.raw, values);
      }
      if (method === undefined) throw new UsageError(`expected a method after ${extension}, e.g. ping or generate. Run 'mep call --help'.`);
      if (rest.length > 0) throw new UsageError(`unexpected argument ${rest[0]}; pass the params as one JSON object.`);
      if (values.input !== undefined) throw new UsageError('--input is for --raw; pass an IR with --ir.');
      const repeat = repeatOf(values.repeat);
      const fullMethod = ALIASES[method] ?? method;
      // What stdin may give: no more than one message holds (--max-message, else the default).
      const request = await readParams(io, params, parseLimitFlags(values).maxMessageBytes ?? DEFAULT_LIMITS.maxMessageBytes);
      if (values.ir !== undefined) request.ir = (await readJsonInput(io, values.ir)).value;
      if (values.option !== undefined) request.options = { ...(request.options as object | undefined), ...parseOptionFlags(values.option, io.cwd) };
      if (request.ir !== undefined && !(request.ir instanceof JsonText) && (typeof request.ir !== 'object' || request.ir === null)) throw new UsageError('"ir" must be a JSON object (a Morphir IR distribution).');
      const { result } = await runOperation(io, { ...values, extension }, undefined, async (session, signal) => {
        // The extension's stream: a log line (dropped while stderr lags), never one of mep's own.
        const stopProgress = io.verbose && !io.isTty ? session.onProgress((p: ProgressParams) => io.log(`[progress] ${p.kind}${p.percentage === undefined ? '' : ` ${p.percentage}%`}${p.message ? ` ${p.message}` : ''}`)) : () => undefined;
        try {
          const times: number[] = [];
          let answer: unknown;
          for (let i = 0; i < repeat; i++) {
            const started = performance.now();
            answer = await send(session, fullMethod, request, signal);
            times.push(performance.now() - started);
          }
          if (repeat > 1) io.err(timingLine(fullMethod, times));
          return answer;
        } finally {
          stopProgress();
        }
      });
      await io.json(result);
      return failed(result) ? ExitCode.Diagnostics : ExitCode.Ok;
    });
  },
};

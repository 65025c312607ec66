/** `mep serve`: serve MEP sessions to another process over stdio, a Unix domain socket or HTTP. */
import { resolve } from 'node:path';
import { DEFAULT_SERVE_MAX_LINE_BYTES, createHostServer } from '../../serve/index.ts';
import { createNodeOpener, createNodeProjectCompiler, listenUnixSocket, serveStdio } from '../../serve/node.ts';
import { HTTP_FLAGS, HTTP_HELP, serveHttp } from './serve-http.ts';
import { SERVE_BOUND_FLAGS, SERVE_BOUND_HELP, positiveCount, serveBoundsOf } from './serve-bounds.ts';
import { DEFAULT_LIMITS } from '../../protocol/limits.ts';
import { ExitCode, UsageError } from '../exit-codes.ts';
import type { Command } from './command.ts';
import { parseFlags } from './command.ts';
import { resolveExtensionArgument } from './extension-argument.ts';
import { LIMIT_FLAGS, LIMIT_HELP, parseLimitFlags } from './limit-flags.ts';
import { useOptimizingWasmTier } from '../../transport/wasm/node/wasm-tier.ts';

/** Room for the `session/call` envelope around a message of the extension's size limit. */
const SERVE_ENVELOPE_BYTES = 1024 * 1024;

/** `mep serve [--socket PATH]`: the served host over stdio or a Unix domain socket. */
export const serveCommand: Command = {
  summary: 'serve extension sessions to another process (JSON-RPC, one message per line)',
  help: `Usage: mep serve [--socket PATH | --http HOST:PORT [--extension EXT]…] [--verbose] [--max-memory SIZE] [--call-timeout TIME] [--max-message SIZE]

Serves MEP sessions over stdin/stdout, or with --socket on a Unix domain socket created with
mode 0600 (only your user may connect). JSON-RPC 2.0, one message per line; requests may run
concurrently and are answered out of order; \`$/cancelRequest\` cancels a running request.

Methods: server/info, session/open {extension, runtime?}, session/call {sessionId, method,
params, timeoutMs?}, project/compile {sessionId, projectDir, output?, options?, timeoutMs?}
(compile the Morphir project in a folder here with the session's frontend, writing its IR as
mep compile <dir> does), session/close {sessionId}, server/shutdown. Notifications to the client:
session/progress, session/log, session/closed (each with its sessionId).

  --socket PATH   listen on a Unix socket instead of stdio (a stale socket file is replaced)
  --verbose       report clients and shutdown on stderr
${HTTP_HELP}
${SERVE_BOUND_HELP}
${LIMIT_HELP}
                      Here they are the defaults of every session; a client's
                      session/open runtime.limits may lower the sizes, never raise
                      them (its callTimeoutMs wins).`,
  async run(argv, io) {
    const { values, positionals } = parseFlags(argv, { socket: { type: 'string' }, verbose: { type: 'boolean' }, ...HTTP_FLAGS, ...SERVE_BOUND_FLAGS, ...LIMIT_FLAGS }, 'serve');
    if (positionals.length > 0) throw new UsageError(`unexpected argument ${positionals[0]}. Run 'mep serve --help'.`);
    if (values.socket !== undefined && values.http !== undefined) throw new UsageError("--socket and --http are two ways to serve: give one. Run 'mep serve --help'.");
    if (values.http === undefined && (values.extension ?? []).length > 0) throw new UsageError("--extension names what --http serves; over stdio and --socket a client names it in session/open.");
    io.verbose = Boolean(values.verbose);
    // A served session makes many calls: wasm on TurboFan from the first, not on Liftoff until
    // V8's background recompiling of the interpreter lands (transport/wasm/node/wasm-tier.ts).
    useOptimizingWasmTier();
    const limits = parseLimitFlags(values);
    // A client's line wraps the message for the extension: let it be as large, plus its envelope.
    const maxLineBytes = limits.maxMessageBytes === undefined ? undefined : Math.max(DEFAULT_SERVE_MAX_LINE_BYTES, limits.maxMessageBytes + SERVE_ENVELOPE_BYTES);
    const transport = values.http !== undefined ? 'http' : values.socket !== undefined ? 'socket' : 'stdio';
    const bounds = serveBoundsOf(values, { transport, maxLineBytes: maxLineBytes ?? DEFAULT_SERVE_MAX_LINE_BYTES, maxMessageBytes: limits.maxMessageBytes ?? DEFAULT_LIMITS.maxMessageBytes });
    const server = createHostServer({
      // MEP_HTTP_TOKEN is this server's own token here: never sent on to an extension at a URL.
      open: createNodeOpener({ resolve: (reference) => resolveExtensionArgument(reference, io, { limits, urlTokenFromEnv: false }), process: bounds.process }),
      ...(values['max-sessions'] === undefined ? {} : { maxSessions: positiveCount(values['max-sessions'], '--max-sessions') }),
      ...bounds.server,
      compileProject: createNodeProjectCompiler(io.cwd),
      ...(maxLineBytes === undefined ? {} : { maxLineBytes }),
      // Why a client was dropped is worth telling even without --verbose.
      log: (message) => io.err(`mep serve: ${message}`),
    });
    const stop = (): void => void server.close();
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    try {
      if (values.http !== undefined) {
        await serveHttp(server, values, io, limits, bounds);
      } else if (values.socket === undefined) {
        await serveStdio(server);
      } else {
        const listener = await listenUnixSocket(server, resolve(io.cwd, values.socket), {
          ...(bounds.maxConnections === undefined ? {} : { maxConnections: bounds.maxConnections }),
          ...(bounds.sendTimeoutMs === undefined ? {} : { sendTimeoutMs: bounds.sendTimeoutMs }),
        });
        if (io.verbose) io.err(`mep serve: listening on ${listener.path}`);
        await listener.closed;
      }
      if (io.verbose) io.err('mep serve: stopped; every session is closed');
      return ExitCode.Ok;
    } finally {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      await server.close();
    }
  },
};

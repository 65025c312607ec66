/**
 * The wasm binding: the extension runs inside the QuickJS engine as an Extism guest. One call of
 * the `handle` export carries one JSON-RPC message in and at most one response out; what the
 * guest sends during the call (progress, logs, secret requests) goes through the MEP host
 * channel (see wit/mep-guest.wit), exposed by the engine as the `__mep` global. In an Extism host
 * without that channel (decided per call): logs go to Extism's log, progress is dropped, and a
 * request is answered with a CapabilityUnavailable error naming what the host lacks.
 */
import * as z from 'zod';
import { ErrorCode } from '../../../host/src/protocol/errors.ts';
import { Method, MethodSchemas } from '../../../host/src/protocol/index.ts';
import type { MethodName } from '../../../host/src/protocol/index.ts';
import { createDispatcher } from '../dispatcher.ts';
import type { Extension } from '../define-extension.ts';
import type { GuestHost } from '../guest-host.ts';
import { isThenable, jsonParse, jsonStringify, then, toText } from '../primordials.ts';

// zod compiles a fast path per object schema with `new Function` on its first parse. In QuickJS
// that compilation is interpreted work repeated on every fresh instance (milliseconds on the
// first request), while the compiled code runs no faster than zod's closures: turn it off.
z.config({ jitless: true });

/** The engine's bridge to the MEP host functions. */
interface MepBridge {
  hostChannel(): boolean;
  notify(json: string): boolean;
  /** Absent in an engine built before `mep_artifact` (attach version 2). */
  artifact?(envelope: string, content: string): boolean;
  request(json: string): string | null;
  interrupted(): boolean;
  inputJson(): unknown;
}

declare const __mep: MepBridge;
declare const Host: { inputString(): string; outputString(s: string): void };
declare const console: { debug(s: string): void; info(s: string): void; warn(s: string): void; error(s: string): void };

const LOG_LEVELS: Record<string, 'debug' | 'info' | 'warn' | 'error'> = { __proto__: null, debug: 'debug', info: 'info', warn: 'warn', error: 'error' } as never;

// The engine's functions, taken before the extension's code runs (see ../primordials.ts): a guest
// that replaces `Host`, `__mep` or `console` changes its own view, not the PDK's.
const mep = {
  hostChannel: __mep.hostChannel,
  notify: __mep.notify,
  artifact: __mep.artifact,
  request: __mep.request,
  interrupted: __mep.interrupted,
  inputJson: __mep.inputJson,
};
const outputString = Host.outputString;
const log = { debug: console.debug, info: console.info, warn: console.warn, error: console.error };

/** Without the host channel: a `morphir.log` goes to Extism's log at its level; anything else (progress) is dropped. */
function degradedNotify(message: object): void {
  const { method, params } = message as { method?: string; params?: { level?: string; message?: unknown } };
  if (method !== Method.Log || params === undefined) return;
  const level = LOG_LEVELS[toText(params.level)] ?? 'info';
  log[level](toText(params.message));
}

/** The exports of a PDK guest, bound to `extension`. */
export function bindWasm(extension: Extension): { handle(): number | Promise<number>; morphir_extension_info(): number; mep_release(): number } {
  const host: GuestHost = {
    notify: (message) => {
      if (mep.hostChannel() && mep.notify(jsonStringify(message)!)) return true;
      degradedNotify(message);
      return false;
    },
    // The content crosses as its UTF-8 bytes; the engine adds the envelope's "length".
    artifact: (requestId, artifact) => mep.artifact !== undefined && mep.hostChannel() && mep.artifact(jsonStringify({ requestId, path: artifact.path, binary: artifact.binary })!, artifact.content),
    async request(message) {
      if (!mep.hostChannel()) {
        return {
          error: {
            code: ErrorCode.CapabilityUnavailable,
            message: `The host runs this extension as a plain Extism plugin, without the MEP host channel (wit/mep-guest.wit), so it cannot answer ${message.method}: run the extension with a MEP host (mep-runtime) to use ${message.method}.`,
            data: { method: message.method, missing: 'mep-host-channel' },
          },
        };
      }
      const reply = mep.request(jsonStringify({ jsonrpc: '2.0', ...message })!);
      if (reply === null) return { error: { code: -32603, message: 'The host did not answer the request.' } };
      return jsonParse(reply) as never;
    },
    interrupted: () => mep.interrupted(),
    // A wasm instance has nothing to release: the host discards it.
    exit: () => undefined,
  };
  const dispatcher = createDispatcher(extension, host);
  try {
    warmUp(extension);
  } catch {
    // Only a head start: an extension whose top level broke what zod uses finds out on its first request.
  }
  // The last message read, kept past a synchronous answer: freeing a big one (a whole IR,
  // object by object) then costs nothing on the answer's path. It goes when the next call
  // starts, or earlier through `mep_release`, which a MEP host calls once it has the answer.
  // An asynchronous handler holds what it still reads: the message is let go once the handler
  // has it, so what the handler drops (the engine releases an awaiting function's dead locals)
  // is freed during the call instead of staying until its end (issue 32: the 3,000-type IR).
  let held: unknown;
  return {
    handle() {
      held = undefined;
      const write = (reply: string | undefined): number => {
        if (reply !== undefined) outputString(reply);
        return 0;
      };
      // Synchronous handlers answer without a promise: the engine then needs no job queue run.
      // The engine parses the input from its bytes, never making a JS string of a whole IR.
      const reply = dispatcher.dispatchParsed(() => (held = mep.inputJson()));
      if (!isThenable(reply)) return write(reply as string | undefined);
      held = undefined;
      return then(reply, write);
    },
    mep_release() {
      held = undefined;
      return 0;
    },
    morphir_extension_info() {
      const { info } = extension.definition;
      outputString(jsonStringify({ ...info, types: extension.claims.extension.types, capabilities: extension.capabilities })!);
      return 0;
    },
  };
}

/**
 * Runs the lifecycle once on a scratch dispatcher while the module initializes, so the work zod
 * does on a schema's first use is already done in the snapshot every instance starts from, not
 * repeated on each instance's first request. Touches nothing outside the scratch dispatcher.
 */
function warmUp(extension: Extension): void {
  const idle: GuestHost = { notify: () => true, request: async () => ({}), interrupted: () => false, exit: () => undefined };
  const scratch = createDispatcher(extension, idle);
  const send = (id: number, method: string, params: unknown) => void scratch.dispatch(jsonStringify({ jsonrpc: '2.0', id, method, params })!);
  send(1, 'morphir.extension.describe', { protocolVersions: ['0.1'] });
  send(2, 'morphir.initialize', { protocolVersions: ['0.1'], host: { name: 'warm-up', version: '0' }, capabilities: {}, permissions: {} });
  send(3, 'morphir.ping', {});
  send(4, 'morphir.extension.capabilities', {});
  send(5, 'morphir.shutdown', {});
  // The schemas of the operations it implements too, on samples that reach every nested
  // schema; the handlers themselves never run here.
  const range = { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } };
  const diagnostics = [{ severity: 'info', code: 'W', message: 'm', location: { uri: 'u:x', range } }];
  const ir = { formatVersion: 3, distribution: [] };
  const def = extension.definition;
  const samples: [MethodName, unknown, unknown][] = [];
  if (def.backend) samples.push([Method.BackendGenerate, { ir, target: 't', options: {} }, { success: true, artifacts: [{ path: 'a', content: '', binary: false }], diagnostics }]);
  if (def.validator) samples.push([Method.ValidatorValidate, { ir, options: {} }, { success: true, diagnostics }]);
  if (def.transform) samples.push([Method.TransformTransform, { ir, options: {} }, { success: true, irVersion: '3', ir, diagnostics }]);
  if (def.frontend) {
    const documents = [{ uri: 'file:///w/a', languageId: 'x', version: 1, text: '' }];
    samples.push([Method.FrontendCompile, { languageId: 'x', sources: { root: 'file:///w', documents }, package: { name: 'p' } }, { success: true, irVersion: '3', ir, modules: [], diagnostics }]);
  }
  for (const [method, params, result] of samples) {
    MethodSchemas[method].params.safeParse(params);
    MethodSchemas[method].result?.safeParse(result);
  }
}

/**
 * Reading what a wasm guest wrote: its bytes as one JSON-RPC message object, or the typed
 * protocol error that discards its instance. Also the host's own cancellation answer. Shared by
 * the phases of the guest transport (guest-transport.ts).
 */
import { ErrorCode, LocalErrorCode, MepError } from '../../protocol/errors.ts';
import { MAX_JSON_DEPTH, nestingLimitError, scanNesting } from '../../protocol/json-depth.ts';
import { Method } from '../../protocol/methods.ts';
import type { JsonRpcMessage } from '../types.ts';
import { parseJson } from '../../protocol/json-parse.ts';
import { SLICE_VALUES, parseJsonSliced } from '../../protocol/json-sliced.ts';

/** The keys of a `mep_artifact` envelope (wit/mep-guest.wit). */
const ARTIFACT_ENVELOPE_KEYS = ['requestId', 'path', 'binary', 'length'] as const;

/** A JSON-RPC id as the transport sees it. */
export type Id = string | number;

/** Decoding and error helpers bound to one extension name. */
export interface GuestMessages {
  /**
   * Parses `bytes` as a JSON-RPC message object; throws the protocol error naming `what`, or
   * ERR_LIMIT for JSON nested deeper than the host reads.
   */
  decode(bytes: Uint8Array, what: string): JsonRpcMessage;
  /**
   * The same, parsed in slices (the event loop turns between them) when it holds a slice's worth
   * of values or more: for large output. A large text of fewer values (a generator's artifacts:
   * a few long strings) is one `JSON.parse`, as short a step as a slice; the slicer read it
   * character by character first, at about twice the time.
   */
  decodeSliced(bytes: Uint8Array, what: string): Promise<JsonRpcMessage>;
  /**
   * The morphir.backend.artifact notification a `mep_artifact` call stands for: `bytes` holds the
   * JSON envelope (`envelopeBytes` bytes: exactly requestId, path, binary and length, the
   * content's byte count) and then the content, UTF-8 (base64 text when binary). The same
   * message the JSON path parses, so every check after it is the same; throws the protocol error
   * of an envelope that is not that, a length that is not the content's, or content that is not UTF-8.
   */
  artifact(bytes: Uint8Array, envelopeBytes: number): JsonRpcMessage;
  /** The ERR_PROTOCOL error of a guest that broke the protocol. */
  protocolError(detail: string, data?: Record<string, unknown>, cause?: unknown): MepError;
  /** The RequestCancelled response the host sends for a cancelled request. */
  cancelled(id: Id): JsonRpcMessage;
}

/** Creates the helpers for extension `name`. */
export function createGuestMessages(name: string): GuestMessages {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const protocolError = (detail: string, data: Record<string, unknown> = {}, cause?: unknown): MepError =>
    new MepError(LocalErrorCode.Protocol, `Wasm extension "${name}" broke the protocol: ${detail}. Its instance was discarded; report this to the extension's author.`, {
      data: { extension: name, ...data },
      cause,
    });
  const utf8 = (bytes: Uint8Array, what: string): string => {
    try {
      return decoder.decode(bytes);
    } catch (cause) {
      throw protocolError(`its ${what} is not UTF-8 JSON`, { size: bytes.length }, cause);
    }
  };
  /** The text of `bytes` and (at least) how many values it holds, checked for excess nesting. */
  const scanned = (bytes: Uint8Array, what: string): { text: string; values: number } => {
    const text = utf8(bytes, what);
    const { excess, values } = scanNesting(text);
    if (excess >= 0) throw nestingLimitError(name, what, excess);
    return { text, values };
  };
  // Nesting deeper than MAX_JSON_DEPTH takes more brackets than a text this short holds: the
  // answers of small calls (a ping) are not scanned.
  const textOf = (bytes: Uint8Array, what: string): string => (bytes.length <= MAX_JSON_DEPTH ? utf8(bytes, what) : scanned(bytes, what).text);
  /** The message `parse` makes of the guest's `bytes`, or the protocol error saying what it is instead. */
  const objectOf = (bytes: Uint8Array, what: string, parse: (text: string) => unknown, read?: string): JsonRpcMessage => {
    const text = read ?? textOf(bytes, what);
    let value: unknown;
    try {
      value = parse(text);
    } catch (cause) {
      throw protocolError(`its ${what} is not UTF-8 JSON`, { size: bytes.length }, cause);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw protocolError(`its ${what} is not a JSON-RPC message object`);
    }
    return value as JsonRpcMessage;
  };
  return {
    protocolError,
    decode: (bytes, what) => objectOf(bytes, what, (text) => parseJson(text, 'data')),
    decodeSliced: async (bytes, what) => {
      let value: unknown;
      const { text, values } = scanned(bytes, what);
      if (values < SLICE_VALUES) return objectOf(bytes, what, (read) => parseJson(read, 'data'), text);
      try {
        value = await parseJsonSliced(text);
      } catch (cause) {
        throw protocolError(`its ${what} is not UTF-8 JSON`, { size: bytes.length }, cause);
      }
      return objectOf(bytes, what, () => value, text);
    },
    artifact: (bytes, envelopeBytes) => {
      const contentBytes = bytes.length - envelopeBytes;
      const data = { size: bytes.length, envelopeBytes, contentBytes };
      if (envelopeBytes === 0) throw protocolError('it sent an artifact\'s bytes through mep_artifact without an envelope', data);
      const envelope = utf8(bytes.subarray(0, envelopeBytes), 'artifact envelope');
      let value: unknown;
      try {
        value = parseJson(envelope, 'data');
      } catch (cause) {
        throw protocolError('its artifact envelope (mep_artifact) is not UTF-8 JSON', data, cause);
      }
      const fields = typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
      const keys = fields === undefined ? [] : Object.keys(fields);
      if (fields === undefined || keys.length !== ARTIFACT_ENVELOPE_KEYS.length || !ARTIFACT_ENVELOPE_KEYS.every((key) => key in fields)) {
        throw protocolError(`its artifact envelope (mep_artifact) is not an object of exactly ${ARTIFACT_ENVELOPE_KEYS.join(', ')}`, { ...data, keys });
      }
      const { requestId, path, binary, length } = fields;
      if (typeof requestId !== 'string' && typeof requestId !== 'number') throw protocolError('its artifact envelope (mep_artifact) names no request (requestId)', data);
      if (length !== contentBytes) {
        throw protocolError(`its artifact envelope (mep_artifact) declares ${JSON.stringify(length)} bytes of content where ${contentBytes} came`, { ...data, declared: length });
      }
      let content: string;
      try {
        content = decoder.decode(bytes.subarray(envelopeBytes));
      } catch (cause) {
        throw protocolError(`the content of its artifact ${JSON.stringify(path)} (mep_artifact) is not UTF-8${binary === true ? ' (a binary artifact\'s content is base64 text)' : ''}`, data, cause);
      }
      return { jsonrpc: '2.0', method: Method.BackendArtifact, params: { requestId, artifact: { path, content, binary } } };
    },
    cancelled: (id) => ({
      jsonrpc: '2.0',
      id,
      error: { code: ErrorCode.RequestCancelled, message: `Request ${JSON.stringify(id)} to wasm extension "${name}" was cancelled.` },
    }),
  };
}

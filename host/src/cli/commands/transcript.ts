/**
 * `--transcript <file>`: every JSON-RPC message of a run, one JSON object per line
 * `{"time", "direction", "message"}`. By default the `text` of source documents is replaced by
 * its length, and secret values are always replaced: the result of each `secret.resolve` and any
 * string containing a resolved value (MEP 0.1, Security: never in protocol transcripts).
 * `--transcript-unredacted` keeps source text; it never reveals secrets.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { jsonLineChunks } from '../../framing/json-chunks.ts';
import { LocalErrorCode, MepError } from '../../protocol/errors.ts';
import { Method } from '../../protocol/index.ts';
import { JsonText } from '../../protocol/json-text.ts';
import { REDACTED, setOwn } from '../../registry/redact.ts';
import type { Redactor } from '../../registry/redact.ts';
import { createRecordingTransport } from '../../transport/recording.ts';
import type { MessageDirection } from '../../transport/recording.ts';
import type { JsonRpcMessage, Transport } from '../../transport/types.ts';

/** An open transcript file. */
export interface Transcript {
  /** Wraps a transport so its messages are written to the file. */
  wrap(transport: Transport): Transport;
  /** Flushes and closes the file. */
  close(): void;
  /**
   * Undefined while every message is in the file; once one could not be recorded (the file
   * cannot be written, or the message cannot be serialized), the ERR_TRANSCRIPT error that says
   * how many and which was first (`data.path`, `data.unrecorded`, `data.first`).
   */
  readonly failure: MepError | undefined;
}

/** Options of {@link openTranscript}. */
export interface TranscriptOptions {
  path: string;
  redactor: Redactor;
  /** Keep source text (secret values stay redacted). */
  unredacted?: boolean;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Replaces the `text` of anything shaped like a source document ({uri, text}). Plain loops, one
 * stack frame per level, for messages as deep as the host reads (protocol/json-depth.ts).
 */
function redactSourceText(value: unknown): unknown {
  if (value instanceof JsonText) return redactSourceText(value.value());
  if (Array.isArray(value)) {
    const out: unknown[] = new Array(value.length);
    for (let i = 0; i < value.length; i++) out[i] = redactSourceText(value[i]);
    return out;
  }
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) setOwn(out, key, redactSourceText(value[key]));
  if (typeof value.uri === 'string' && typeof value.text === 'string') out.text = `[redacted source text: ${value.text.length} characters]`;
  return out;
}

/**
 * Opens (truncates) the transcript file.
 *
 * @example
 * const transcript = openTranscript({ path: 'run.jsonl', redactor });
 * try { … transcript.wrap(transport) … } finally { transcript.close(); }
 */
export function openTranscript(options: TranscriptOptions): Transcript {
  const fd = openSync(options.path, 'w', 0o600);
  const secretRequests = new Set<unknown>();
  let open = true;
  let unrecorded = 0;
  let first: Unrecorded | undefined;
  let failure: { unrecorded: number; error: MepError } | undefined;
  const time = () => new Date().toISOString();
  /** The entry of one message, redacted; written in chunks (framing/json-chunks.ts), never as one string. */
  function entryOf(direction: MessageDirection, message: JsonRpcMessage): unknown {
    let shown: unknown = message;
    if (direction === 'extension->host' && message.method === Method.SecretResolve && 'id' in message) secretRequests.add(message.id);
    if (direction === 'host->extension' && !('method' in message) && secretRequests.has(message.id) && 'result' in message) {
      shown = { ...message, result: REDACTED };
    }
    if (!options.unredacted) shown = redactSourceText(shown);
    shown = options.redactor.scrubValue(shown);
    return { time: time(), direction, message: shown };
  }
  // A message that cannot be recorded leaves a line in its place when the file still takes one,
  // and is counted for `failure` either way: a transcript never loses a message silently.
  function miss(direction: MessageDirection, message: JsonRpcMessage, error: unknown): void {
    unrecorded++;
    const entry = unrecordedEntry(message, error);
    first ??= { direction, ...entry };
    try {
      writeAll(fd, `${JSON.stringify({ time: time(), direction, unrecorded: entry })}\n`);
    } catch {
      // The file takes nothing more; `failure` reports every message missing.
    }
  }
  function record(direction: MessageDirection, message: JsonRpcMessage): void {
    if (!open) return;
    let entry: unknown;
    try {
      entry = entryOf(direction, message);
    } catch (error) {
      miss(direction, message, error);
      return;
    }
    try {
      for (const chunk of jsonLineChunks(entry)) writeAll(fd, chunk);
    } catch (error) {
      miss(direction, message, error);
    }
  }
  function recordClose(error: MepError): void {
    if (!open) return;
    const closed = options.redactor.scrubValue({ code: error.code, message: error.message, ...(error.data === undefined ? {} : { data: error.data }) });
    try {
      writeAll(fd, `${JSON.stringify({ time: time(), direction: 'extension->host', closed })}\n`);
    } catch (cause) {
      unrecorded++;
      first ??= { direction: 'extension->host', code: LocalErrorCode.Transcript, reason: reasonOf(cause), closed: String(error.code) };
    }
  }
  return {
    wrap: (transport) => createRecordingTransport(transport, record, recordClose),
    close() {
      if (!open) return;
      open = false;
      closeSync(fd);
    },
    get failure() {
      if (first === undefined) return undefined;
      if (failure?.unrecorded === unrecorded) return failure.error;
      const what = first.method === undefined ? `a ${first.direction} message` : `${first.method} (${first.direction})`;
      const error = new MepError(
        LocalErrorCode.Transcript,
        `The transcript ${options.path} is missing ${unrecorded} message${unrecorded === 1 ? '' : 's'}: ${what} could not be recorded (${first.reason}), so the run stops before writing its output. Write the transcript where there is room, or run without --transcript.`,
        { data: { path: options.path, unrecorded, first } },
      );
      failure = { unrecorded, error };
      return error;
    },
  };
}

/** What a transcript says in place of a message it could not record. */
interface Unrecorded {
  direction: MessageDirection;
  code: typeof LocalErrorCode.Transcript;
  /** Why: an errno code (ENOSPC) or the serializer's message. */
  reason: string;
  method?: string;
  id?: string | number;
  /** For a close error that could not be recorded: its code. */
  closed?: string;
}

function reasonOf(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' ? code : error instanceof Error ? error.message : String(error);
}

function unrecordedEntry(message: JsonRpcMessage, error: unknown): Omit<Unrecorded, 'direction'> {
  const method = typeof message.method === 'string' ? { method: message.method.slice(0, 200) } : {};
  const id = typeof message.id === 'string' || typeof message.id === 'number' ? { id: typeof message.id === 'string' ? message.id.slice(0, 200) : message.id } : {};
  return { code: LocalErrorCode.Transcript, reason: reasonOf(error), ...method, ...id };
}

/** Writes all of `text` (a write to a file may take fewer bytes than given). */
function writeAll(fd: number, text: string): void {
  const bytes = Buffer.from(text, 'utf8');
  for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at, bytes.length - at);
}

/**
 * `--transcript <file>`: every JSON-RPC message of a run, one JSON object per line
 * `{"time", "direction", "message"}`. By default the `text` of source documents is replaced by
 * its length, and secret values are always replaced: the result of each `secret.resolve` and any
 * string containing a resolved value (MEP 0.1, Security: never in protocol transcripts).
 * `--transcript-unredacted` keeps source text; it never reveals secrets.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
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
  function record(direction: MessageDirection, message: JsonRpcMessage): void {
    if (!open) return;
    let shown: unknown = message;
    if (direction === 'extension->host' && message.method === Method.SecretResolve && 'id' in message) secretRequests.add(message.id);
    if (direction === 'host->extension' && !('method' in message) && secretRequests.has(message.id) && 'result' in message) {
      shown = { ...message, result: REDACTED };
    }
    if (!options.unredacted) shown = redactSourceText(shown);
    shown = options.redactor.scrubValue(shown);
    writeSync(fd, `${JSON.stringify({ time: new Date().toISOString(), direction, message: shown })}\n`);
  }
  return {
    wrap: (transport) => createRecordingTransport(transport, record),
    close() {
      if (!open) return;
      open = false;
      closeSync(fd);
    },
  };
}

/**
 * An operation's input file read ahead, while its command still loads (early-operation.ts), for
 * the command's own read to take (readJsonInput in commands/operation.ts). Taken only for the same
 * absolute path, read by the same reader with the same bounds; a read that failed is not taken:
 * the command reads the file again and reports what it finds then.
 */
import { readRegularFile, type RegularFileOptions } from '../files/regular-file.ts';
import { HOST_FILE_LIMITS } from '../protocol/limits.ts';

/** How an input file is read: a regular file only (a FIFO or a device would hang or flood mep), at most as large as any message. */
export const INPUT_READ: RegularFileOptions = { what: 'the input', maxBytes: HOST_FILE_LIMITS.inputBytes, limit: 'maxMessageBytes' };

/** The read under way, until the command takes it. */
let ahead: { path: string; bytes: Promise<Buffer> } | undefined;

/** Starts reading the input at `path` (absolute) for the command; never fails. */
export function readInputAhead(path: string): void {
  const bytes = readRegularFile(path, INPUT_READ);
  bytes.catch(() => undefined);
  ahead = { path, bytes };
}

/**
 * The bytes of `path` as read by {@link readInputAhead}, once; else (another path, a failed read) a
 * fresh read. Bytes, not text: the command decodes them, and an ASCII file's go on the wire as they
 * are (protocol/json-text.ts, framing/json-text.ts).
 */
export function readInput(path: string): Promise<Buffer> {
  const early = ahead?.path === path ? ahead.bytes : undefined;
  ahead = undefined;
  const read = (): Promise<Buffer> => readRegularFile(path, INPUT_READ);
  return early === undefined ? read() : early.catch(read);
}

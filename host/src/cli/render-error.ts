/**
 * How `mep` shows a failure on stderr: the error's message, then, when the extension's stack was
 * mapped to its sources, the first frame in the author's code (`  at level3 (src/lib/deep.ts:13:11)`);
 * with `--verbose` the whole mapped stack and the rest of the error's data. `--json` prints the
 * data itself (operation.ts), so nothing here is the only place a detail appears.
 */
import { jsonChunks } from '../framing/json-chunks.ts';
import { HOST_BOUNDS } from '../protocol/limits.ts';
import { formatPosition, type StackFrame } from '../transport/source-map/stack.ts';


/** `value` as indented JSON, cut after about `HOST_BOUNDS.maxShownDetailChars` with a note saying so (`--json` prints all). */
function shownJson(value: unknown): string {
  let text = '';
  for (const chunk of jsonChunks(value, { indent: 2, chunkChars: 16 * 1024 })) {
    if (text.length >= HOST_BOUNDS.maxShownDetailChars) return `${text}\n… (cut at ${text.length} characters: --json prints the whole error)`;
    text += chunk;
  }
  return text;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function isFrame(value: unknown): value is StackFrame {
  return isRecord(value) && typeof value.file === 'string' && typeof value.line === 'number';
}

/** `at fn (file:line:col)`, or `at file:line:col` for an anonymous frame. */
export function frameText(frame: StackFrame): string {
  return frame.function === undefined ? `at ${formatPosition(frame)}` : `at ${frame.function} (${formatPosition(frame)})`;
}

/** Keys of a mapped error's data shown in their own form rather than as JSON. */
const SHOWN_APART = new Set(['stack', 'frames', 'origin', 'guestStack', 'guestStderr']);

/**
 * The lines after an error's message for an error's `data`: its origin frame, and with `verbose`
 * the mapped stack and the remaining data as JSON.
 */
export function errorDetailLines(data: unknown, verbose: boolean): string[] {
  const lines: string[] = [];
  if (!isRecord(data)) {
    if (verbose && data !== undefined) lines.push(shownJson(data));
    return lines;
  }
  // A crashed process's exception line (mapped-errors.ts): its log lines are in the message.
  if (typeof data.exception === 'string' && !verbose) lines.push(`  ${data.exception.trim()}`);
  if (isFrame(data.origin) && !verbose) lines.push(`  ${frameText(data.origin)}`);
  if (!verbose) return lines;
  if (typeof data.stack === 'string') lines.push(...data.stack.replace(/\n+$/, '').split('\n'));
  else if (isFrame(data.origin)) lines.push(`  ${frameText(data.origin)}`);
  const rest = Object.fromEntries(Object.entries(data).filter(([key]) => !SHOWN_APART.has(key)));
  if (Object.keys(rest).length > 0) lines.push(shownJson(rest));
  return lines;
}

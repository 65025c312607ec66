/**
 * Text an extension shaped, made safe to put on a terminal. Everything `mep` writes to stdout and
 * stderr passes through {@link terminalLines} (io.ts is the one place that calls it), so a log
 * line, message, diagnostic, id, name, path, version, stack frame or progress text cannot move
 * the cursor, set the window title, write the clipboard or reorder what is shown: such code points
 * are written as their escapes (framing/safe-text.ts). An extension's text also cannot start a
 * line of its own: a line break inside one write continues it, indented.
 */
import { safeText } from '../framing/safe-text.ts';

/**
 * One write of `mep`'s output made safe: {@link safeText}, CRLF read as a line break, and every
 * line after the first that does not start with white space indented two spaces, so text
 * inside one write (an extension's message with `\nmep: done` in it) never begins a line of
 * its own.
 */
export function terminalLines(text: string): string {
  const safe = safeText(text.includes('\r\n') ? text.replace(/\r\n/g, '\n') : text);
  return safe.includes('\n') ? safe.replace(/\n(?=[^\s])/g, '\n  ') : safe;
}

/**
 * `text` with every line longer than `max` characters cut, and the cut said: `… (N more
 * characters)`. One line of a 20 MB log message is not something a terminal can show.
 */
export function clipLines(text: string, max: number): string {
  if (text.length <= max) return text;
  return text
    .split('\n')
    .map((line) => (line.length <= max ? line : `${clipText(line, max)} (${line.length - max + 1} more characters)`))
    .join('\n');
}

/** Line prefixes `mep` uses for itself (and its diagnostic severities): no extension is shown as one. */
const OWN_PREFIXES = /^(mep|error|warning|info|hint|note|debug|progress)$/i;
const PLAIN_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/**
 * An extension's name or id as the prefix of its log lines: as it is when it is a plain id
 * (letters, digits, `.`, `_`, `-`) that is not one of `mep`'s own prefixes, else quoted as a
 * JSON string. A guest that calls itself `mep`, `mep call` or `warning` is shown `"mep": …`,
 * never as a line of `mep`'s own.
 *
 * @example
 * extensionLabel('acme.avro'); // 'acme.avro'
 * extensionLabel('mep');       // '"mep"'
 */
export function extensionLabel(name: string): string {
  return PLAIN_NAME.test(name) && !OWN_PREFIXES.test(name) ? name : JSON.stringify(name);
}

/**
 * `text` cut to at most `max` UTF-16 units (without splitting a surrogate pair), with `…` when
 * cut: for a status line that must stay one line on a terminal.
 */
export function clipText(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = Math.max(0, max - 1);
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${text.slice(0, end)}…`;
}

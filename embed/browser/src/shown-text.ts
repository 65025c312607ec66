/**
 * Text an extension shaped (an error message, a diagnostic, a log line), made fit to show on a
 * page as `mep` makes it fit to print (cli/io.ts): controls, bidi overrides and invisible
 * characters as their escapes (`\u202e`), and every line cut at `HOST_BOUNDS.maxLineChars` with
 * the cut said. `textContent` already keeps markup inert; this keeps a 64 MiB error from
 * becoming one line of the page, and `txt.exe` from showing as `exe.txt`.
 */
import { clipLines } from '../../../host/src/cli/terminal-text.ts';
import { safeText } from '../../../host/src/framing/safe-text.ts';
import { HOST_BOUNDS } from '../../../host/src/protocol/limits.ts';

/**
 * @example
 * statusLine.textContent = shownText(`Stopped: ${error.message}`);
 */
export function shownText(text: string): string {
  return clipLines(safeText(text), HOST_BOUNDS.maxLineChars);
}

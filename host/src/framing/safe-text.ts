/**
 * Text shown, never obeyed, by a terminal: the code points an extension could use to move the
 * cursor, clear the screen, set the window title (OSC 0), write the clipboard (OSC 52), start a
 * device control string, reorder what is shown (bidi overrides), or stack a million combining
 * marks on one cell, written as their JSON escape (`\u001b`, `\u202e`). The same rule makes a
 * human line safe and keeps a JSON text valid with the same value, so `--json` output, transcripts
 * and `mep`'s stderr share it (cli/terminal-text.ts, framing/json-chunks.ts). No I/O.
 */

import { HOST_BOUNDS } from '../protocol/limits.ts';

/**
 * Code points a terminal (or the eye) obeys instead of showing: C0 controls but tab and line
 * feed, DEL and the C1 controls (CSI, OSC, DCS, ST as single bytes), the bidi controls (ALM,
 * LRM, RLM, LRE–RLO, LRI–PDI), zero-width and invisible format characters (ZWSP, word joiner,
 * invisible operators, BOM), the line and paragraph separators, interlinear annotations, the
 * tag characters (U+E0000–E007F) and unpaired surrogates. ZWNJ and ZWJ are kept: scripts and
 * emoji need them, and they move nothing.
 */
const DANGEROUS =
  /[\x00-\x08\x0b-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b\u200e\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]|\udb40[\udc00-\udc7f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * A run of combining marks past `HOST_BOUNDS.maxCombiningMarks` (the Stream-Safe Text Format's
 * 30, UAX #15): real text never needs more, and a run of a million makes some terminals redraw one
 * cell for seconds. The rest of such a run is escaped like a control.
 */
const COMBINING_RUN = new RegExp(`(\\p{M}{${HOST_BOUNDS.maxCombiningMarks}})(\\p{M}+)`, 'gu');

/** `\uXXXX` for each UTF-16 unit of `s` (the JSON escape, readable as text). */
function escapeUnits(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) out += `\\u${s.charCodeAt(i).toString(16).padStart(4, '0')}`;
  return out;
}

/**
 * `text` with every code point a terminal would obey written as its escape (`\u001b`), and
 * combining marks past `HOST_BOUNDS.maxCombiningMarks` in a row escaped too. Line feeds and tabs
 * stay. Inside a JSON text the result is JSON with the same value.
 *
 * @example
 * safeText('\x1b]52;c;cHduZWQ=\x07'); // '\\u001b]52;c;cHduZWQ=\\u0007'
 */
export function safeText(text: string): string {
  DANGEROUS.lastIndex = 0;
  let out = DANGEROUS.test(text) ? text.replace(DANGEROUS, escapeUnits) : text;
  // \p{M} needs a non-ASCII code point; skip the Unicode-aware scan for ASCII text.
  if (/[^\x00-\x7f]/.test(out)) out = out.replace(COMBINING_RUN, (_all, kept: string, rest: string) => kept + escapeUnits(rest));
  return out;
}


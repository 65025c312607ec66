/**
 * Test kit: `v`-flag (unicodeSets) patterns for build/engine/regexp-v.test.ts, each with inputs,
 * as JavaScript text a script evaluates (in the engine and in V8 alike). A case is
 * `[source, flags, inputs]`; the script answers one line per case: the matches (index and
 * groups) per input, or the error's constructor name when the pattern is refused.
 */

/** The script: `globalThis.f()` answers the lines. */
export const REGEXP_V_SCRIPT = String.raw`globalThis.f = () => {
const E = '\u{1F44D}', E2 = '\u{1F44D}\u{1F3FD}', FLAG = '\u{1F1EB}\u{1F1F7}', KEY = '1\uFE0F\u20E3', FAM = '\u{1F468}\u200D\u{1F469}\u200D\u{1F467}';
const cases = [
  // Outside a class the v flag forbids nothing more than u: punctuators, doubled or not, and '-'.
  ['^(-?\\d*):(-?\\d*):?(-?\\d*)$', 'v', ['1:2', '-1:3:2', 'a:b']], [';;;|;;', 'gv', ['a;;b;;;c']],
  ['a-b', 'v', ['a-b']], ['::', 'v', ['a::b']], ['&&', 'v', ['&&']], ['!!', 'v', ['!!']], ['##', 'v', ['##']], ['%%', 'v', ['%%']],
  [',,', 'v', [',,']], ['<<', 'v', ['<<']], ['==', 'v', ['==']], ['>>', 'v', ['>>']], ['@@', 'v', ['@@']], ['\x60\x60', 'v', ['\x60\x60']], ['~~', 'v', ['~~']],
  ['a--b', 'v', ['a--b']], ['$$', 'v', ['']], ['^^', 'v', ['']], ['..', 'v', ['ab']], ['a??', 'v', ['a']], ['a**', 'v', []], ['a++', 'v', []],
  ['{', 'v', []], ['}', 'v', []], [']', 'v', []], ['a{2}', 'v', ['aaa']], ['\\-', 'v', ['-']], ['\\&', 'v', []], ['\\q{a}', 'v', []],
  // Set operations and nested classes.
  ['[\\p{L}--[a-z]]', 'gv', ['abcDEFéß1']], ['[\\p{L}&&\\p{Lu}]', 'gv', ['abcDEFÉ']], ['[[a-z]--[aeiou]]', 'gv', ['hello']],
  ['[\\w--\\d]', 'gv', ['a1_b2']], ['[[a-z]&&[^aeiou]]', 'gv', ['hello']], ['[\\p{ASCII}--\\p{L}--\\d]', 'gv', ['a1-!Z']],
  ['[\\p{L}--\\p{Lu}&&a]', 'v', []], ['[a-z&&b]', 'v', []], ['[[a-z]&&b]', 'gv', ['abc']], ['[a-c--b]', 'v', []], ['[ab&&c]', 'v', []],
  ['[a&&&b]', 'v', []], ['[&&a]', 'v', []], ['[a&&]', 'v', []], ['[a--]', 'v', []], ['[--a]', 'v', []], ['[a---b]', 'v', []],
  ['[^[^a]]', 'gv', ['abc']], ['[[^a]--b]', 'gv', ['abc']], ['[^\\d--3]', 'v', []], ['[[[a-c]--b]&&[a-b]]', 'gv', ['abc']],
  ['[\\d--]', 'v', []], ['[\\d&&]', 'v', []], ['[a-z--[aeiou]]', 'v', []], ['[\\s--\\n]', 'gv', [' \n\t']], ['[\\D--\\w]', 'gv', ['a1 !']],
  ['[^]', 'gv', ['ab']], ['[]', 'v', ['a']], ['[[]]', 'v', ['a']], ['[^[]]', 'gv', ['ab']], ['[[[[a]]]]', 'gv', ['ab']], ['[a[b]c]', 'gv', ['abcd']], ['[a[b--c]]', 'gv', ['abc']],
  // String literals.
  ['[\\q{abc|def}x]', 'gv', ['abcdefxab']], ['^[\\q{abc|a}]$', 'v', ['abc', 'a', 'ab']], ['[\\q{abc|a}]', 'g', []], ['[\\q{}]', 'gv', ['ab']],
  ['[^\\q{ab}]', 'v', []], ['[^\\q{a}]', 'gv', ['ab']], ['[^\\q{a|b}]', 'gv', ['abc']], ['[\\q{a\\|b}]', 'gv', ['a|b']], ['[\\q{a|}]', 'gv', ['ab']],
  ['[\\q{abc}--\\q{abc}]', 'gv', ['abc']], ['[\\q{abc|d}&&\\q{abc}]', 'gv', ['abcd']], ['[\\p{L}--\\q{a|bc}]', 'gv', ['abcd']],
  ['[[\\q{ab|c}]--c]', 'gv', ['abc']], ['[^[\\q{ab}]]', 'v', []], ['[\\q{\\u0041\\x42}]', 'gv', ['AB']], ['[\\q{\\}}]', 'gv', ['}']],
  ['[\\q{ab|c}]{2}', 'gv', ['abcab']], ['[\\q{ab|c}]+?d', 'gv', ['ababcd']], ['(?<x>[\\q{ab}])\\k<x>', 'gv', ['abab']], ['(?:[\\q{a|ab}])b', 'gv', ['abb ab']],
  ['[\\q{a|ab|abc}]c', 'gv', ['abcc abc ac']], ['[^[^\\q{ab}]]', 'v', []], ['[^[\\q{a}]]', 'gv', ['ab']], ['x(?=[\\q{ab}])', 'gv', ['xab xa']], ['a|[\\q{b|cd}]|e', 'gv', ['abcde']],
  // Strings backwards, in a lookbehind.
  ['(?<=[\\q{ab}])c', 'gv', ['abc xbc']], ['(?<![\\q{ab|b}])c', 'gv', ['abc bc c']], ['(?<=[\\q{abc|b}d])e', 'gv', ['abce xbe de']],
  ['(?<=(?=[\\q{ab}])..)c', 'gv', ['abc']], ['(?<=[\\q{ab}]{2})c', 'gv', ['ababc abc']], ['(?<=[\\q{AB}])c', 'giv', ['abc']],
  ['(?<=\\p{RGI_Emoji})x', 'gv', [KEY + 'x', FLAG + 'x', 'ax']], ['(?<=\\p{RGI_Emoji_Flag_Sequence}|a)x', 'gv', [FLAG + 'x ax']],
  // Properties of strings.
  ['\\p{RGI_Emoji}', 'gv', ['a' + E + E2 + FLAG + KEY + FAM]], ['^\\p{RGI_Emoji}+$', 'v', [E2 + FAM, 'a']], ['\\P{RGI_Emoji}', 'v', []],
  ['[^\\p{RGI_Emoji}]', 'v', []], ['[\\p{RGI_Emoji}--\\q{' + E2 + '}]', 'gv', [E2 + E]], ['\\p{Emoji_Keycap_Sequence}', 'gv', [KEY + '1']],
  ['\\p{RGI_Emoji_Flag_Sequence}', 'gv', [FLAG]], ['\\p{Basic_Emoji}', 'gv', [E + '#']], ['\\p{RGI_Emoji_Modifier_Sequence}', 'gv', [E2]],
  ['\\p{RGI_Emoji_ZWJ_Sequence}', 'gv', [FAM]], ['\\p{RGI_Emoji_Tag_Sequence}', 'gv', ['\u{1F3F4}\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F}']],
  ['\\p{RGI_Emoji}', 'u', []], ['[\\p{RGI_Emoji}&&\\p{ASCII}]', 'gv', ['#1a']], ['^\\p{RGI_Emoji}$', 'iv', [E]], ['\\p{RGI_Emoji}{2}', 'gv', [E + E2 + E]],
  ['[\\p{RGI_Emoji}--\\p{Emoji_Keycap_Sequence}]', 'gv', [KEY + E]], ['[\\d\\q{1\\uFE0F\\u20E3}]', 'gv', [KEY]],
  ['[\\p{RGI_Emoji}a]', 'gv', [E2 + 'a']], ['[\\p{RGI_Emoji}]+', 'gv', [E + E2 + 'x' + FAM]],
  // Case-insensitive (iv: each operand case-folded before the operation).
  ['[\\p{Lu}]', 'giv', ['aBc']], ['[^\\P{Lu}]', 'giv', ['aBc']], ['[^\\P{Lu}]', 'giu', ['aBc']], ['\\P{Ll}', 'giv', ['aB']], ['\\P{Ll}', 'giu', ['aB']],
  ['[\\p{Lowercase}--[aeiou]]', 'giv', ['AbEc']], ['[\\q{KM}]', 'giv', ['km']], ['[^x]', 'giv', ['xXy']], ['[\\w--[a-f]]', 'giv', ['ABGg']],
  ['[^\\w]', 'giv', ['a_ſK!']], ['\\W', 'giv', ['ſK!']], ['[\\W]', 'giv', ['ſ\u212A!']], ['[^\\W]', 'giv', ['ſ\u212A!']], ['[^\\W]', 'giu', ['ſ\u212A!']],
  ['[[a-z]--[^A-Z]]', 'giv', ['aB']], ['[\\p{L}&&[^a]]', 'giv', ['aAb']], ['[\\q{ß}]', 'giv', ['ß', 'ẞ', 'ss']], ['\\u{1F44D}', 'giv', [E]],
  ['[\\q{A|b}]', 'giv', ['aB']], ['[^\\p{Ll}]', 'giv', ['aA1']], ['[^\\p{Ll}]', 'giu', ['aA1']], ['\\P{Ll}', 'iv', ['a']], ['[\\P{Ll}]', 'giv', ['aA1']],
  ['[\\P{Ll}]', 'giu', ['aA1']], ['[^[^\\p{Ll}]]', 'giv', ['aA1']], ['[\\p{Ll}&&\\p{Lu}]', 'giv', ['aAbB']], ['[[\\p{Ll}]&&[\\p{Lu}]]', 'giv', ['aA']],
  ['[\\q{abc|ab}]', 'giv', ['ABC AB']], ['\\b\\w+\\b', 'giv', ['Hello World']],
  // Escapes a v-flag class takes, and the characters it refuses unescaped.
  ['[\\-]', 'v', ['-']], ['[\\&]', 'v', ['&']], ['[\\!]', 'v', ['!']], ['[\\#]', 'v', ['#']], ['[\\%]', 'v', ['%']], ['[\\,]', 'v', [',']], ['[\\:]', 'v', [':']],
  ['[\\;]', 'v', [';']], ['[\\<]', 'v', ['<']], ['[\\=]', 'v', ['=']], ['[\\>]', 'v', ['>']], ['[\\@]', 'v', ['@']], ['[\\\x60]', 'v', ['\x60']], ['[\\~]', 'v', ['~']],
  ['[\\(]', 'v', ['(']], ['[\\)]', 'v', [')']], ['[\\{]', 'v', ['{']], ['[\\}]', 'v', ['}']], ['[\\/]', 'v', ['/']], ['[\\|]', 'v', ['|']], ['[\\[]', 'v', ['[']], ['[\\]]', 'v', [']']],
  ['[\\^]', 'v', ['^']], ['[\\$]', 'v', ['$']], ['[\\.]', 'v', ['.']], ['[\\*]', 'v', ['*']], ['[\\+]', 'v', ['+']], ['[\\?]', 'v', ['?']], ['[\\\\]', 'v', ['\\']],
  ['[(]', 'v', []], ['[)]', 'v', []], ['[{]', 'v', []], ['[}]', 'v', []], ['[/]', 'v', []], ['[|]', 'v', []], ['[a-]', 'v', []], ['[-a]', 'v', []], ['[-]', 'v', []],
  ['[!!]', 'v', []], ['[!]', 'v', ['!']], ['[a!!b]', 'v', []], ['[a!b]', 'v', ['!']], ['[;;]', 'v', []], ['[a::]', 'v', []], ['[\\_]', 'v', []], ['[\\ ]', 'v', []], ['[\\k]', 'v', []], ['[\\z]', 'v', []],
  ['[\\-]', 'u', ['-']], ['[\\&]', 'u', []], ['[&&]', 'u', ['&']], ['[(]', 'u', ['(']], ['[a-]', 'u', ['-']], [';;', 'u', [';;']], ['a-b', 'u', ['a-b']],
  ['[\\b]', 'v', ['\b']], ['[\\cA]', 'v', ['\x01']], ['[\\c1]', 'v', []], ['[\\0]', 'v', ['\0']], ['[\\01]', 'v', []], ['[\\1]', 'v', []], ['[\\B]', 'v', []],
  ['[\\x41-\\x43]', 'gv', ['ABCD']], ['[\\u{1F44D}-\\u{1F44F}]', 'gv', [E]], ['[\\ud83d\\udc4d]', 'gv', [E]], ['[a-z]', 'gv', ['xY']], ['[\\d-z]', 'v', []], ['[a-\\d]', 'v', []],
  ['[\\uD83D]', 'gv', ['\uD83D\uDC4D\uD83D']], ['\\uD83D', 'gv', ['\uD83D\uDC4D\uD83D']], ['^[\\q{\\uD83D\\uDC4D}]$', 'v', [E]],
  ['\\u{10FFFF}', 'v', ['\u{10FFFF}']], ['[\\u{0}-\\u{10FFFF}--[\\0-\\uFFFF]]', 'gv', ['a\u{1F44D}']],
  // Properties and what npm packages write (jsonpath-plus's lookbehind class).
  ['\\p{Script=Greek}', 'gv', ['aαβ']], ['[\\p{Script_Extensions=Latin}&&\\p{Lu}]', 'gv', ['aAé']], ['\\p{Lowercase_Letter}', 'iv', ['A']],
  ['[\\p{Any}--\\p{ASCII}]', 'gv', ['aé']], ['[\\p{Assigned}&&\\p{ASCII}]', 'v', ['a']], ['[\\p{gc=Lu}]', 'gv', ['aB']], ['\\p{Emoji_Presentation}', 'gv', [E + '#']],
  ['(?<=[\\(,=:\\[!\\|?\\{\\};+\\-*%<>~^]|&)\\s*x', 'gv', ['(x ,x &x ^x ax']], ['[\\w$\\-]+', 'gv', ['a-b$c']], ['[\\[\'](\\??\\(.*?\\))[\\]\'](?!.\\])', 'gv', ["['(@.a)']"]],
  ['^[\\p{ID_Start}$_][\\p{ID_Continue}$\\u200C\\u200D]*$', 'v', ['abc', '1a']], ['[\\p{L}\\p{N}]+', 'gv', ['ab1 c']],
  ['.', 'gv', [E2]], ['^.$', 'v', [E]], ['[\\s\\S]', 'v', ['x']],
];
const out = [];
for (const [src, flags, inputs] of cases) {
  let re;
  try { re = new RegExp(src, flags); } catch (e) { out.push('/' + src + '/' + flags + ': ' + e.constructor.name); continue; }
  out.push('/' + src + '/' + flags + ': ' + inputs.map((s) => {
    if (re.global) return JSON.stringify([...s.matchAll(re)].map((m) => [m.index, ...m]));
    const m = re.exec(s);
    return JSON.stringify(m && [m.index, ...m]);
  }).join(' '));
}
Host.outputString(out.join('\n'));
};`;

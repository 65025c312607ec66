/** Words for the problems of elm/parser's dead ends, as morphir-elm encodes them. */

/**
 * One problem (`["Expecting", "x"]`, `"ExpectingInt"`, `["Problem", "…"]`, …) as text.
 *
 * @example
 * parseProblemText(['Expecting symbol', '=']); // "expecting '='"
 */
export function parseProblemText(problem: unknown): string {
  if (Array.isArray(problem)) {
    const [tag, detail] = problem.map(String);
    if (tag === 'Expecting') return `expecting ${detail}`;
    if (tag === 'Expecting symbol') return `expecting '${detail}'`;
    if (tag === 'ExpectingKeyword') return `expecting the keyword '${detail}'`;
    if (tag === 'Problem') return detail.charAt(0).toLowerCase() + detail.slice(1);
    return `${tag} ${detail}`.trim();
  }
  switch (problem) {
    case 'ExpectingInt':
      return 'expecting an integer';
    case 'ExpectingHex':
      return 'expecting a hexadecimal number';
    case 'ExpectingOctal':
      return 'expecting an octal number';
    case 'ExpectingBinary':
      return 'expecting a binary number';
    case 'ExpectingFloat':
      return 'expecting a floating-point number';
    case 'ExpectingNumber':
      return 'expecting a number';
    case 'ExpectingVariable':
      return 'expecting a name';
    case 'ExpectingEnd':
      return 'expecting the end of the module';
    case 'UnexpectedChar':
      return 'unexpected character';
    case 'BadRepeat':
      return 'a repetition that makes no progress';
    default:
      return String(problem);
  }
}

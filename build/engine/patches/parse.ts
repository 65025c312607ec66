/**
 * Edits to the parser's look-ahead. Measured with callgrind on the native build
 * (bench/callgrind.bench.ts); each edit's commit names its figures.
 */
import type { QuickjsPatch } from './types.ts';

export const PARSE_PATCHES: readonly QuickjsPatch[] = [
  {
    file: 'quickjs.c',
    at: { line: 'state[level++] = 0;', near: 'static int js_parse_skip_parens_token(JSParseState *s, int *pbits, bool no_line_terminator)' },
    op: 'after',
    text: String.raw`    /* mep engine: asked only whether '(' opens an arrow function's parameters (no bits wanted),
       answer no at once when the parenthesis opens with the keyword function, which no parameter
       list can start with: '(function' then '=>' is a syntax error either way */
    if (!pbits && s->token.val == '(' && peek_token(s, false) == TOK_FUNCTION)
        return TOK_FUNCTION;`,
    why:
      'decide that "(function" does not start an arrow function without reading to its closing parenthesis: the ' +
      'arrow test tokenized (atoms and all) the whole parenthesized text, so a bundle wrapped in "(function () { … })" ' +
      'was read twice, and each nested wrapper once more',
  },
];

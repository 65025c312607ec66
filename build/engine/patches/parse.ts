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
       answer no at once when what follows the parenthesis cannot start a parameter list: the
       keyword function, or an ASCII character other than ')', '[', '{', '.' (of "...") and '\\'
       (of an escaped name). An arrow's parameters are a name, a pattern or a rest element, so
       the token after the closing parenthesis being '=>' is a syntax error either way */
    if (!pbits && s->token.val == '(') {
        int mep_next = peek_token(s, false);
        if (mep_next == TOK_FUNCTION ||
            (mep_next > 0 && mep_next < 128 && !strchr(")[{.\\", mep_next)))
            return mep_next;
    }
    bool mep_name = false, mep_default = false; /* see the test in the loop below */`,
    why:
      'decide that "(function", "((" or "(1" and the like do not start an arrow function without reading to the ' +
      'closing parenthesis: the ' +
      'arrow test tokenized (atoms and all) the whole parenthesized text, so a bundle wrapped in "(function () { … })" ' +
      'was read twice, and each nested wrapper once more',
  },
  {
    file: 'quickjs.c',
    at: { line: 'for (;;) {', near: 'static int js_parse_skip_parens_token(JSParseState *s, int *pbits, bool no_line_terminator)' },
    op: 'after',
    text: String.raw`        /* mep engine: in the arrow test, a name directly inside the parenthesis and outside a
           default value is a parameter, so only ',', ')' or '=' may follow it: anything else
           ("(a.b", "(a || f)", "(a in b)") answers no without reading to the closing parenthesis */
        if (!pbits && level == 2) {
            int mep_tok = s->token.val;
            if (mep_tok == ',')
                mep_default = false;
            else if (mep_tok == '=')
                mep_default = true;
            else if (mep_name && !mep_default && mep_tok != ')')
                goto done;
            mep_name = !mep_default && (mep_tok == TOK_IDENT || mep_tok == TOK_AWAIT || mep_tok == TOK_YIELD);
        }`,
    why:
      'stop the arrow test at the first token that no parameter list has after a name: "(x || function () { … })" ' +
      'and "(a.b(…))" were tokenized to their closing parenthesis before being parsed',
  },
];

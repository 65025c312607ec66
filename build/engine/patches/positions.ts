/**
 * Edits to where quickjs-ng's parser records source positions, so a stack frame in the sandbox
 * names the `line:col` V8 names for the same code, and an error maps to the same place of the
 * author's source in a wasm and in a process build (issue 33). QuickJS gives an instruction the
 * position of the last token that recorded one; a call took the position of its last argument
 * that was a name (`throw new Error('no ' + m)` pointed at `m`; a call spread over lines named
 * the line of its last argument), and a property read the start of its expression (`x.v.w` on
 * undefined pointed at `x`). V8 places (measured, build/engine/positions.test.ts):
 * - a call at the callee's last token when that is a name (`f(`, `a.b(`, `super(`), else at its
 *   `(` (`a[k](`, `f()(`, `(fn)(`, `a.#m(`, `p.catch(`, a keyword property), a tagged template
 *   at the template, and `new X(…)` / `new X` at `new`;
 * - a property read `a.b` at `b`;
 * - a store `a.b = v` at its `=`;
 * - a destructuring of undefined or null at the pattern's first property (or its `{` when it has
 *   none), an array pattern at its `[` (QuickJS: the function's start, or the last name read);
 * - and the first line's columns from 1 like the others' (QuickJS counted them from 0).
 * Each edit records the position where V8 would and emits it right before the instruction.
 */
import type { QuickjsPatch } from './types.ts';

/** The parse state's member with the kind of the token before the current one. */
const LAST_TOK = 'mep_last_tok';
/** js_parse_postfix_expr's locals: V8's position of the call being parsed. */
const LINE = 'mep_call_line';
const COL = 'mep_call_col';
const EMIT_CALL = `emit_source_loc_at(s, ${LINE}, ${COL}); /* mep engine: the call where V8 places it */`;
const POSTFIX = 'static __exception int js_parse_postfix_expr(JSParseState *s, int parse_flags)';

export const POSITION_PATCHES: readonly QuickjsPatch[] = [
  {
    file: 'quickjs.c',
    at: { line: 'int last_col_num;   /* column number of last token */' },
    op: 'after',
    text: `    int ${LAST_TOK}; /* mep engine: the kind of the last token (V8 places a call after a name at the name) */`,
    why: 'positions as V8 reports them: whether the token before a call\'s ( is a name',
  },
  {
    file: 'quickjs.c',
    at: { line: 's->last_col_num = s->token.col_num;', near: 'static __exception int next_token(JSParseState *s)' },
    op: 'after',
    text: `    s->${LAST_TOK} = s->token.val; /* mep engine */`,
    why: 'positions as V8 reports them: the tokenizer keeps the kind of the token it leaves',
  },
  {
    file: 'quickjs.c',
    at: { line: 'static void emit_source_loc(JSParseState *s)' },
    op: 'before',
    text: String.raw`/* mep engine: where V8 places a call whose '(' is the current token: at the callee's
   last token when it is a name (an identifier, a non-keyword property name, super), else at the '('. */
static int mep_token_col(JSParseState *s)
{
    /* the token's own column: token.col_num is where the last name or white space began, so a
       punctuator right after a name (the ( of f(x)) had the name's column */
    return (int)(s->token.ptr - s->token.line_start) + 1;
}

static void mep_call_position(JSParseState *s, int *line, int *col)
{
    if (s->${LAST_TOK} == TOK_IDENT || s->${LAST_TOK} == TOK_SUPER) {
        *line = s->last_line_num;
        *col = s->last_col_num;
    } else {
        *line = s->token.line_num;
        *col = mep_token_col(s);
    }
}
`,
    why: 'positions as V8 reports them: V8\'s rule for the position of a call (its parser\'s Token::IsCallable test)',
  },
  {
    file: 'quickjs.c',
    at: { line: 'int optional_chaining_label;', near: POSTFIX },
    op: 'after',
    text: `    int ${LINE} = 0, ${COL} = 0; /* mep engine: V8's position of the call being parsed */`,
    why: 'positions as V8 reports them: the call\'s position is kept while its arguments are parsed',
  },
  {
    file: 'quickjs.c',
    at: { line: 'emit_source_loc(s);', near: 'return js_parse_error(s, "new.target only allowed within functions");' },
    op: 'before',
    text: `            ${LINE} = s->last_line_num; /* mep engine: V8 places new X(...) at new */\n            ${COL} = s->last_col_num;`,
    why: 'positions as V8 reports them: new X(…) and new X at `new` (QuickJS: at X, or at the last argument)',
  },
  {
    file: 'quickjs.c',
    at: { line: 'emit_op(s, OP_call_constructor);', near: '/* new operator on an object */' },
    op: 'before',
    text: `                ${EMIT_CALL}`,
    why: 'positions as V8 reports them: new X without arguments at `new`',
  },
  {
    file: 'quickjs.c',
    at: { line: 'parse_func_call:' },
    op: 'after',
    text: `            if (call_type != FUNC_CALL_NEW) /* mep engine: new keeps the position of new */\n                mep_call_position(s, &${LINE}, &${COL});`,
    why: 'positions as V8 reports them: a call at its callee\'s name or at its (',
  },
  {
    file: 'quickjs.c',
    at: { line: 'call_type = FUNC_CALL_TEMPLATE;' },
    op: 'after',
    text: `            ${LINE} = s->token.line_num; /* mep engine: V8 places a tagged template at the template */\n            ${COL} = mep_token_col(s);`,
    why: 'positions as V8 reports them: tag`…` at the template',
  },
  {
    file: 'quickjs.c',
    at: { line: '/* apply function call */' },
    op: 'after',
    text: `                ${EMIT_CALL}`,
    why: 'positions as V8 reports them: a call with a spread argument (f(...xs)) at the call, not at its last argument',
  },
  {
    file: 'quickjs.c',
    at: { line: 'emit_func_call:' },
    op: 'after',
    text: `                ${EMIT_CALL}`,
    why: 'positions as V8 reports them: a call at the call, not at its last argument that was a name (a call spread over lines named the wrong line)',
  },
  {
    file: 'quickjs.c',
    at: { line: 'emit_op(s, OP_get_field);', near: 'parse_property:' },
    op: 'before',
    text: '                    emit_source_loc(s); /* mep engine: V8 places a property read at its name */',
    why: 'positions as V8 reports them: a.b at b (x.v.w on undefined: QuickJS named x)',
  },
  {
    file: 'quickjs.c',
    at: { line: "if (op == '=' || (op >= TOK_MUL_ASSIGN && op <= TOK_POW_ASSIGN)) {" },
    op: 'after',
    text: '        int mep_assign_line = s->token.line_num, mep_assign_col = mep_token_col(s); /* mep engine: the = */',
    why: 'positions as V8 reports them: a store a.b = v at its =',
  },
  {
    file: 'quickjs.c',
    at: { line: 'put_lvalue(s, opcode, scope, name, label, PUT_LVALUE_KEEP_TOP, false);', near: 'emit_op(s, op - TOK_MUL_ASSIGN + OP_mul);' },
    op: 'before',
    text: "        if (op == '=')\n            emit_source_loc_at(s, mep_assign_line, mep_assign_col); /* mep engine: V8 places a store at its = */",
    why: 'positions as V8 reports them: a store a.b = v at its = (QuickJS: at the last name of v)',
  },
  {
    file: 'quickjs.c',
    at: { line: '/* throw an exception if the value cannot be converted to an object */' },
    op: 'before',
    text: `        if (s->token.val == '}') /* mep engine: V8 places an object pattern at its first property, or at { when it has none */
            emit_source_loc_at(s, s->last_line_num, s->last_col_num);
        else
            emit_source_loc(s);`,
    why: 'positions as V8 reports them: const { a } = undefined at a (QuickJS: the start of the function)',
  },
  {
    file: 'quickjs.c',
    at: { line: 'source_col_num = s->token.col_num;', near: 'int enum_depth;' },
    op: 'replace',
    text: '        source_col_num = mep_token_col(s); /* mep engine: the [ itself */',
    why: 'positions as V8 reports them: the column of an array pattern\'s [ (a [ right after a name had the name\'s)',
  },
  {
    file: 'quickjs.c',
    at: { line: 'emit_op(s, OP_for_of_start);', near: 'int enum_depth;' },
    op: 'before',
    text: '        emit_source_loc_at(s, source_line_num, source_col_num); /* mep engine: V8 places an array pattern at its [ */',
    why: 'positions as V8 reports them: const [a] = undefined at [ (QuickJS: the start of the function)',
  },
  {
    file: 'quickjs.c',
    at: { line: 's->mark = s->buf_ptr + min_int(1, input_len);', near: 'static void js_parse_init(JSContext *ctx, JSParseState *s,' },
    op: 'replace',
    text: '    s->mark = s->buf_ptr; /* mep engine: with eol one before, the first line counts columns from 1 as the others */',
    why: 'positions as V8 reports them: columns of the first line were one less than V8\'s (a one-line bundle was off everywhere)',
  },
  {
    file: 'quickjs.c',
    at: { line: 's->eol = s->buf_ptr;', near: 'static void js_parse_init(JSContext *ctx, JSParseState *s,' },
    op: 'replace',
    text: '    s->eol = s->buf_ptr - 1; /* mep engine: the virtual end of line before the first (only ever subtracted from) */',
    why: 'positions as V8 reports them: the first line\'s columns from 1 (a column is the token\'s start minus the last end of line)',
  },
];

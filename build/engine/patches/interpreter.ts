/** Edits to the bytecode interpreter's commonest property reads and string comparisons. */
import type { QuickjsPatch } from './types.ts';

/** Ours, before JS_CallInternal: the inline first steps of a property read and of `===`. */
const HELPERS = String.raw`/* mep engine: the first step of JS_GetPropertyInternal, taken inside the interpreter: when obj is
   an object with an own data property atom, its value (TRUE); anything else (a getter, a
   prototype's property, an exotic object's index, a primitive) is left to the full read (FALSE).
   QuickJS has no inline caches, so every obj.name paid a call into the generic read. */
static force_inline BOOL mep_get_own_data(JSContext *ctx, JSValueConst obj, JSAtom atom, JSValue *pval)
{
    if (likely(JS_VALUE_GET_TAG(obj) == JS_TAG_OBJECT)) {
        JSProperty *pr;
        JSShapeProperty *prs = find_own_property(&pr, JS_VALUE_GET_OBJ(obj), atom);
        if (prs != NULL && !(prs->flags & JS_PROP_TMASK)) {
            *pval = JS_DupValue(ctx, pr->u.value);
            return TRUE;
        }
    }
    return FALSE;
}

/* mep engine: js_strict_eq_slow with the two quick answers for two strings made here: the same
   string, or lengths that differ (two distinct atoms of strings differ too) */
static force_inline int mep_strict_eq_slow(JSContext *ctx, JSValue *sp, BOOL is_neq)
{
    if (JS_VALUE_GET_TAG(sp[-2]) == JS_TAG_STRING && JS_VALUE_GET_TAG(sp[-1]) == JS_TAG_STRING) {
        JSString *p1 = JS_VALUE_GET_STRING(sp[-2]), *p2 = JS_VALUE_GET_STRING(sp[-1]);
        if (p1 == p2 || p1->len != p2->len ||
            (p1->atom_type == JS_ATOM_TYPE_STRING && p2->atom_type == JS_ATOM_TYPE_STRING)) {
            BOOL res = p1 == p2;
            JS_FreeValue(ctx, sp[-2]);
            JS_FreeValue(ctx, sp[-1]);
            sp[-2] = JS_NewBool(ctx, res ^ is_neq);
            return 0;
        }
    }
    return js_strict_eq_slow(ctx, sp, is_neq);
}

`;

/** QuickJS's reads of `obj.name` (the value replaces obj, or is pushed after it) and `x.length`. */
const GET_FIELD = String.raw`                atom = get_u32(pc);
                pc += 4;

                val = JS_GetProperty(ctx, sp[-1], atom);
                if (unlikely(JS_IsException(val)))
                    goto exception;
`;

const GET_FIELD_FAST = String.raw`                atom = get_u32(pc);
                pc += 4;

                /* mep engine: an own data property is read inline */
                if (!mep_get_own_data(ctx, sp[-1], atom, &val))
                    val = JS_GetProperty(ctx, sp[-1], atom);
                if (unlikely(JS_IsException(val)))
                    goto exception;
`;

export const INTERPRETER_PATCHES: readonly QuickjsPatch[] = [
  {
    file: 'quickjs.c',
    find: '#define FUNC_RET_YIELD_STAR 2\n\n/* argv[] is modified if (flags & JS_CALL_FLAG_COPY_ARGV) = 0. */',
    replace: '#define FUNC_RET_YIELD_STAR 2\n\n' + HELPERS + '/* argv[] is modified if (flags & JS_CALL_FLAG_COPY_ARGV) = 0. */',
    why: 'the helpers of the two edits below, defined before the interpreter that inlines them',
  },
  {
    file: 'quickjs.c',
    find: '        CASE(OP_get_field):\n            {\n                JSValue val;\n                JSAtom atom;\n' + GET_FIELD,
    replace: '        CASE(OP_get_field):\n            {\n                JSValue val;\n                JSAtom atom;\n' + GET_FIELD_FAST,
    why:
      'read `obj.name` inline when obj has it as an own data property (most reads of records and options): the ' +
      'generic read was a call into JS_GetPropertyInternal for each, the interpreter\'s commonest one',
  },
  {
    file: 'quickjs.c',
    find: '        CASE(OP_get_field2):\n            {\n                JSValue val;\n                JSAtom atom;\n' + GET_FIELD,
    replace: '        CASE(OP_get_field2):\n            {\n                JSValue val;\n                JSAtom atom;\n' + GET_FIELD_FAST,
    why: 'the same for `obj.name` whose obj stays on the stack (a method call\'s receiver, `obj.a.b`)',
  },
  {
    file: 'quickjs.c',
    find:
      '            OP_CMP(OP_strict_eq, ==, js_strict_eq_slow(ctx, sp, 0));\n            OP_CMP(OP_strict_neq, !=, js_strict_eq_slow(ctx, sp, 1));',
    replace:
      '            /* mep engine: two strings that are the same, or differ in length, are answered inline */\n' +
      '            OP_CMP(OP_strict_eq, ==, mep_strict_eq_slow(ctx, sp, 0));\n            OP_CMP(OP_strict_neq, !=, mep_strict_eq_slow(ctx, sp, 1));',
    why:
      'answer `a === b` on two strings without the generic comparison when the answer is plain (the same string, or ' +
      'different lengths): the Avro backend compares names and kinds this way hundreds of thousands of times',
  },
];

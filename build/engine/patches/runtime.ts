/** Edits to QuickJS's runtime: when the collector runs, integers to text, `instanceof`. */
import type { QuickjsPatch } from './types.ts';

export const RUNTIME_PATCHES: readonly QuickjsPatch[] = [
  {
    file: 'quickjs.c',
    find: 'rt->malloc_gc_threshold = rt->malloc_state.malloc_size +\n            (rt->malloc_state.malloc_size >> 1);',
    replace:
      'rt->malloc_gc_threshold = rt->malloc_state.malloc_size > SIZE_MAX / 4 ? SIZE_MAX : rt->malloc_state.malloc_size * 4; /* mep engine: MEP_GC_GROWTH */',
    why:
      'collect cycles when the heap has grown 4x, not 1.5x: QuickJS scans every live object on each collection, so reading ' +
      'a big input (hundreds of thousands of objects) rescanned the growing heap over and over, while reference counting ' +
      'frees acyclic garbage at once anyway. Measured in a guest (CPU time): JSON.parse of 10 MB 1.62 -> 1.18 s, ' +
      'the 2,000-type Avro job 2.96 -> 2.69 s; a factor of 8 gained nothing more.',
  },
  {
    file: 'quickjs.c',
    find: '        snprintf(buf, sizeof(buf), "%d", JS_VALUE_GET_INT(val));\n        str = buf;',
    replace:
      '        {\n' +
      '            /* mep engine: decimal digits without snprintf */\n' +
      '            int32_t n = JS_VALUE_GET_INT(val);\n' +
      '            uint32_t u = n < 0 ? -(uint32_t)n : (uint32_t)n;\n' +
      "            char *q = buf + sizeof(buf) - 1;\n" +
      "            *q = '\\0';\n" +
      "            do { *--q = (char)('0' + u % 10); u /= 10; } while (u != 0);\n" +
      "            if (n < 0) *--q = '-';\n" +
      '            str = q;\n' +
      '        }',
    why:
      'format integers without snprintf: every int-to-string conversion (`"x" + i`, template literals, array keys) went ' +
      "through wasi-libc's printf machinery; JSON.stringify converts each array index to a string, so printf was a quarter " +
      'of stringifying 10 MB of arrays',
  },
  {
    file: 'quickjs.c',
    find:
      'int JS_IsInstanceOf(JSContext *ctx, JSValueConst val, JSValueConst obj)\n{\n    JSValue method;\n\n' +
      '    if (!JS_IsObject(obj))\n        goto fail;\n    method = JS_GetProperty(ctx, obj, JS_ATOM_Symbol_hasInstance);\n' +
      '    if (JS_IsException(method))\n        return -1;\n' +
      '    if (!JS_IsNull(method) && !JS_IsUndefined(method)) {\n        JSValue ret;\n        ret = JS_CallFree(ctx, method, obj, 1, &val);',
    replace:
      'static JSValue js_function_hasInstance(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv);\n\n' +
      'int JS_IsInstanceOf(JSContext *ctx, JSValueConst val, JSValueConst obj)\n{\n    JSValue method;\n\n' +
      '    if (!JS_IsObject(obj))\n        goto fail;\n    method = JS_GetProperty(ctx, obj, JS_ATOM_Symbol_hasInstance);\n' +
      '    if (JS_IsException(method))\n        return -1;\n' +
      '    if (!JS_IsNull(method) && !JS_IsUndefined(method)) {\n        JSValue ret;\n' +
      '        /* mep engine: the built-in Function.prototype[Symbol.hasInstance] is the ordinary test */\n' +
      '        if (JS_VALUE_GET_TAG(method) == JS_TAG_OBJECT && JS_VALUE_GET_OBJ(method)->class_id == JS_CLASS_C_FUNCTION &&\n' +
      '            JS_VALUE_GET_OBJ(method)->u.cfunc.c_function.generic == js_function_hasInstance) {\n' +
      '            JS_FreeValue(ctx, method);\n' +
      '            return JS_OrdinaryIsInstanceOf(ctx, val, obj);\n' +
      '        }\n' +
      '        ret = JS_CallFree(ctx, method, obj, 1, &val);',
    why:
      '`x instanceof C` called Function.prototype[Symbol.hasInstance] as a function every time (a native call with its ' +
      'frame); when that built-in is what C inherits, the ordinary test it would run is made directly',
  },
  {
    file: 'quickjs.c',
    find:
      '        CASE(OP_post_inc):\n        CASE(OP_post_dec):\n            if (js_post_inc_slow(ctx, sp, opcode))\n                goto exception;\n' +
      '            sp++;\n            BREAK;\n',
    replace:
      '        CASE(OP_post_inc):\n        CASE(OP_post_dec):\n' +
      '            {\n' +
      '                /* mep engine: an integer that stays one is done here, as OP_inc and OP_dec do */\n' +
      '                JSValue op1 = sp[-1];\n' +
      '                if (JS_VALUE_GET_TAG(op1) == JS_TAG_INT) {\n' +
      '                    int val = JS_VALUE_GET_INT(op1);\n' +
      '                    if (opcode == OP_post_inc ? val != INT32_MAX : val != INT32_MIN) {\n' +
      '                        sp[0] = JS_NewInt32(ctx, opcode == OP_post_inc ? val + 1 : val - 1);\n' +
      '                        sp++;\n' +
      '                        BREAK;\n' +
      '                    }\n' +
      '                }\n' +
      '            }\n' +
      '            if (js_post_inc_slow(ctx, sp, opcode))\n                goto exception;\n' +
      '            sp++;\n            BREAK;\n',
    why:
      'give `x++` and `x--` whose value is used the integer fast path that `++x` has: QuickJS sent every one through ' +
      'ToNumeric and the generic arithmetic (580,000 calls in the 2,000-type Avro job, from loops such as ' +
      '`for (let i = 0; ...; i++)` that the compiler does not turn into an in-place increment)',
  },
];

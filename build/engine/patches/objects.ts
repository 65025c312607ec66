/** Edits that add a new data property to an ordinary object directly (object literals, class fields; JSON.parse uses the helper too). */
import type { QuickjsPatch } from './types.ts';

export const OBJECT_PATCHES: readonly QuickjsPatch[] = [
  {
    file: 'quickjs.c',
    find: 'static int add_fast_array_element(JSContext *ctx, JSObject *p,\n                                  JSValue val, int flags)\n{',
    replace:
      '/* mep engine: gives the ordinary extensible object p, which has no property prop, the data property\n' +
      '   prop = val (configurable, writable, enumerable); frees val when that fails */\n' +
      'static int mep_add_data_property(JSContext *ctx, JSObject *p, JSAtom prop, JSValue val)\n' +
      '{\n' +
      '    JSProperty *pr = add_property(ctx, p, prop, JS_PROP_C_W_E);\n' +
      '    if (unlikely(!pr)) {\n' +
      '        JS_FreeValue(ctx, val);\n' +
      '        return -1;\n' +
      '    }\n' +
      '    pr->u.value = val;\n' +
      '    return 0;\n' +
      '}\n\n' +
      'static int add_fast_array_element(JSContext *ctx, JSObject *p, JSValue val, int flags)\n{',
    why:
      'one helper for the two edits below that add a new data property directly (JSON.parse and object literals): ' +
      'add_property plus the value, with the value freed on failure',
  },
  {
    file: 'quickjs.c',
    find: '                ret = JS_DefinePropertyValue(ctx, sp[-2], atom, sp[-1],\n                                             JS_PROP_C_W_E | JS_PROP_THROW);',
    replace:
      '                {\n' +
      '                    /* mep engine: a new key of an ordinary extensible object is added directly */\n' +
      '                    JSProperty *pr;\n' +
      '                    JSObject *p = JS_VALUE_GET_TAG(sp[-2]) == JS_TAG_OBJECT ? JS_VALUE_GET_OBJ(sp[-2]) : NULL;\n' +
      '                    if (p && p->class_id == JS_CLASS_OBJECT && p->extensible && !find_own_property(&pr, p, atom))\n' +
      '                        ret = mep_add_data_property(ctx, p, atom, sp[-1]);\n' +
      '                    else\n' +
      '                        ret = JS_DefinePropertyValue(ctx, sp[-2], atom, sp[-1], JS_PROP_C_W_E | JS_PROP_THROW);\n' +
      '                }',
    why:
      'let an object literal\'s `key: value` (and a class field) add a new key of an ordinary extensible object directly, ' +
      'without the generic definition path; anything else (an existing key, an exotic or sealed object) still goes that way',
  },
];

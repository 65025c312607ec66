/**
 * Fetches the QuickJS 2021-03-27 C sources from the npm registry (`npm pack qjsc@0.3.0`),
 * verifies the tarball against a pinned sha512 integrity and extracts only
 * `deps/quickjs_2021_03_27/`. The package's install scripts never run (npm pack does not run
 * lifecycle scripts of registry packages, and --ignore-scripts makes that explicit), then
 * applies the engine's few edits ({@link QUICKJS_PATCHES}).
 */
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LocalErrorCode, MepError } from '../../host/src/protocol/errors.ts';

/** The registry package that carries the QuickJS sources, pinned exactly. */
export const QUICKJS_PACKAGE = 'qjsc@0.3.0';
/** `npm view qjsc@0.3.0 dist.integrity`. */
export const QUICKJS_INTEGRITY =
  'sha512-a7+cU6/IVcZbIejffdt/wZVMX6LL2MDL3HQ9Zb5Gm23G9DvBMS/z9GHFxz39bAvp2PvMOM+ypSOAyokt2DdZ2w==';
/** The folder inside the tarball that holds QuickJS. */
const QUICKJS_DIR_IN_TARBALL = 'package/deps/quickjs_2021_03_27';
/** The C files of libquickjs (quickjs-libc.c is not used: the engine has no OS). */
export const QUICKJS_SOURCES = ['cutils.c', 'libregexp.c', 'libunicode.c', 'libbf.c', 'quickjs.c'] as const;

/** One edit of ours to the fetched sources: `find` must occur exactly once in `file`. */
export interface QuickjsPatch {
  file: (typeof QUICKJS_SOURCES)[number];
  find: string;
  replace: string;
  /** Why the engine needs it (kept with the edit, for the next QuickJS upgrade). */
  why: string;
}

/**
 * The engine's edits to QuickJS, applied after the integrity check. Each is small and says why;
 * a source that no longer matches fails the build instead of silently building without it.
 */
export const QUICKJS_PATCHES: readonly QuickjsPatch[] = [
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
    find: '                /* XXX: could do this string conversion only when needed */\n                prop = JS_ToStringFree(ctx, JS_NewInt64(ctx, i));',
    replace:
      '                /* mep engine: the key is only passed to toJSON (objects, BigInt) or the replacer */\n' +
      '                prop = JS_IsObject(v) || JS_IsBigInt(ctx, v) || !JS_IsUndefined(jsc->replacer_func)\n' +
      '                    ? JS_ToStringFree(ctx, JS_NewInt64(ctx, i)) : JS_UNDEFINED;',
    why: 'make JSON.stringify name an array element only when toJSON or a replacer can see the name, as the XXX note there suggests',
  },
  {
    file: 'quickjs.c',
    find: '        return;\n    new_hash_size += slack / sizeof(*new_hash_table);\n',
    replace: '        return;\n    /* mep engine: the size stays a power of two (the bucket is `hash & (size - 1)`) */\n',
    why:
      "keep a Map's bucket count a power of two: QuickJS added the allocator's slack to it, which is harmless only when " +
      'the allocator reports no usable size (as wasi-libc builds did); with glue/alloc.c reporting exact sizes, the mask ' +
      'skipped most buckets and Map look-ups walked long chains (measured: Map look-ups 12x slower in the Avro job)',
  },
  {
    file: 'quickjs.c',
    find: '        h = (uintptr_t)JS_VALUE_GET_PTR(key) * 3163;',
    replace: '        h = ((uintptr_t)JS_VALUE_GET_PTR(key) >> 3) * 3163; /* mep engine: blocks are 8-byte aligned */',
    why:
      'hash an object or symbol key by the address bits that vary: every block is 8-byte aligned, so the low 3 bits of ' +
      '`address * 3163` were always 0 and a Map keyed by objects used one bucket in eight',
  },
  {
    file: 'quickjs.c',
    find:
      '        /* fall through */\n    case \'\\"\':\n        if (js_parse_string(s, c, TRUE, p + 1, &s->token, &p))\n            goto fail;\n        break;\n' +
      '    case \'\\r\':  /* accept DOS and MAC newline sequences */',
    replace:
      '        /* fall through */\n    case \'\\"\':\n' +
      '        if (c == \'\\"\') {\n' +
      '            /* mep engine: printable ASCII without escapes becomes a string at once */\n' +
      '            const uint8_t *q = p + 1;\n' +
      '            while (q < s->buf_end && *q >= 0x20 && *q < 0x80 && *q != \'\\"\' && *q != \'\\\\\')\n' +
      '                q++;\n' +
      '            if (q < s->buf_end && *q == \'\\"\') {\n' +
      '                JSValue str = js_new_string8(s->ctx, p + 1, q - (p + 1));\n' +
      '                if (JS_IsException(str))\n' +
      '                    goto fail;\n' +
      '                s->token.val = TOK_STRING;\n' +
      '                s->token.u.str.sep = c;\n' +
      '                s->token.u.str.str = str;\n' +
      '                p = q + 1;\n' +
      '                break;\n' +
      '            }\n' +
      '        }\n' +
      '        if (js_parse_string(s, c, TRUE, p + 1, &s->token, &p))\n            goto fail;\n        break;\n' +
      '    case \'\\r\':  /* accept DOS and MAC newline sequences */',
    why:
      'let JSON.parse take a string of printable ASCII without escapes (nearly every name and key in an IR) in one copy: ' +
      'the shared JS string lexer appended it to a growable buffer character by character',
  },
  {
    file: 'quickjs.c',
    find: '    if (string_buffer_putc8(b, \'\\"\'))\n        goto fail;\n    for(i = 0; i < p->len; ) {\n        c = string_getc(p, &i);',
    replace:
      '    if (string_buffer_putc8(b, \'\\"\'))\n        goto fail;\n' +
      '    /* mep engine: an 8-bit string is copied in runs between the characters that need an escape */\n' +
      '    i = 0;\n' +
      '    if (!p->is_wide_char) {\n' +
      '        int run = 0;\n' +
      '        for (; i < p->len; i++) {\n' +
      '            uint8_t ch = p->u.str8[i];\n' +
      '            if (ch >= 32 && ch != \'\\"\' && ch != \'\\\\\')\n' +
      '                continue;\n' +
      '            if (string_buffer_write8(b, p->u.str8 + run, i - run))\n' +
      '                goto fail;\n' +
      '            run = i + 1;\n' +
      '            switch (ch) {\n' +
      '            case \'\\t\': c = \'t\'; break;\n' +
      '            case \'\\r\': c = \'r\'; break;\n' +
      '            case \'\\n\': c = \'n\'; break;\n' +
      '            case \'\\b\': c = \'b\'; break;\n' +
      '            case \'\\f\': c = \'f\'; break;\n' +
      '            case \'\\"\': case \'\\\\\': c = ch; break;\n' +
      '            default: c = 0; break;\n' +
      '            }\n' +
      '            if (c ? string_buffer_putc8(b, \'\\\\\') || string_buffer_putc8(b, c)\n' +
      '                  : string_buffer_puts8(b, "\\\\u00") || string_buffer_putc8(b, "0123456789abcdef"[ch >> 4]) ||\n' +
      '                    string_buffer_putc8(b, "0123456789abcdef"[ch & 15]))\n' +
      '                goto fail;\n' +
      '        }\n' +
      '        if (string_buffer_write8(b, p->u.str8 + run, i - run))\n' +
      '            goto fail;\n' +
      '    }\n' +
      '    while (i < p->len) {\n        c = string_getc(p, &i);',
    why:
      'let JSON.stringify copy the plain parts of a one-byte string at once: it called string_getc and string_buffer_putc ' +
      'for every character, and an artifact is one long string',
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
    find: '                    ret = JS_DefinePropertyValue(ctx, val, prop_name,\n                                                 prop_val, JS_PROP_C_W_E);',
    replace:
      '                    {\n' +
      '                        /* mep engine: a new key of the fresh plain object is added directly */\n' +
      '                        JSProperty *pr;\n' +
      '                        JSObject *p = JS_VALUE_GET_OBJ(val);\n' +
      '                        if (find_own_property(&pr, p, prop_name))\n' +
      '                            ret = JS_DefinePropertyValue(ctx, val, prop_name, prop_val, JS_PROP_C_W_E);\n' +
      '                        else\n' +
      '                            ret = mep_add_data_property(ctx, p, prop_name, prop_val);\n' +
      '                    }',
    why:
      'let JSON.parse add a member to the object it is building without the generic definition path (exotic objects, ' +
      'getters, non-extensible checks, which a fresh plain object never has); a repeated key still goes the generic way',
  },
  {
    file: 'quickjs.c',
    find: '                    ret = JS_DefinePropertyValueUint32(ctx, val, idx, el, JS_PROP_C_W_E);',
    replace:
      '                    /* mep engine: the fresh array is fast and grows at its end */\n' +
      '                    ret = add_fast_array_element(ctx, JS_VALUE_GET_OBJ(val), el, JS_PROP_C_W_E);',
    why:
      'let JSON.parse append an element to the array it is building directly: each one went through a number, an atom and ' +
      'the generic definition path before reaching the same append',
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
  {
    file: 'quickjs.c',
    find: '    case JS_TAG_STRING:\n        h = hash_string(JS_VALUE_GET_STRING(key), 0);\n        break;',
    replace:
      '    case JS_TAG_STRING:\n' +
      '        {\n' +
      '            /* mep engine: computed once per string, kept in hash_next (used only by atoms; 0: not yet) */\n' +
      '            JSString *p = JS_VALUE_GET_STRING(key);\n' +
      '            if (p->atom_type == 0 && p->hash_next != 0) {\n' +
      '                h = p->hash_next;\n' +
      '            } else {\n' +
      '                h = hash_string(p, 0);\n' +
      '                if (p->atom_type == 0)\n' +
      '                    p->hash_next = h;\n' +
      '            }\n' +
      '        }\n' +
      '        break;',
    why:
      'remember a string\'s Map hash in the string: every Map.get/set/has of a string key hashed all its characters again ' +
      '(QuickJS strings are immutable, except the in-place append below, which forgets it)',
  },
  {
    file: 'quickjs.c',
    find: '        /* Concatenate in place in available space at the end of p1 */',
    replace:
      '        /* Concatenate in place in available space at the end of p1 (mep engine: forgetting the Map hash) */\n' +
      '        if (p1->atom_type == 0)\n' +
      '            p1->hash_next = 0;',
    why: 'a string appended to in place forgets the Map hash it remembered (see the edit of map_hash_key)',
  },
  {
    file: 'quickjs.c',
    find:
      '    h = map_hash_key(ctx, key) & (s->hash_size - 1);\n    list_for_each(el, &s->hash_table[h]) {\n' +
      '        mr = list_entry(el, JSMapRecord, hash_link);\n        if (js_same_value_zero(ctx, mr->key, key))',
    replace:
      '    h = map_hash_key(ctx, key) & (s->hash_size - 1);\n' +
      '    /* mep engine: the hash the key string remembers (map_hash_key just set it), 0 if none */\n' +
      '    uint32_t remembered = JS_VALUE_GET_TAG(key) == JS_TAG_STRING && JS_VALUE_GET_STRING(key)->atom_type == 0 ?\n' +
      '        JS_VALUE_GET_STRING(key)->hash_next : 0;\n' +
      '    list_for_each(el, &s->hash_table[h]) {\n' +
      '        mr = list_entry(el, JSMapRecord, hash_link);\n' +
      '        /* mep engine: a string key remembering another hash is another string */\n' +
      '        if (remembered != 0 && JS_VALUE_GET_TAG(mr->key) == JS_TAG_STRING) {\n' +
      '            JSString *q = JS_VALUE_GET_STRING(mr->key);\n' +
      '            if (q->atom_type == 0 && q->hash_next != 0 && q->hash_next != remembered)\n' +
      '                continue;\n' +
      '        }\n' +
      '        if (js_same_value_zero(ctx, mr->key, key))',
    why:
      'let a Map look-up skip, without comparing characters, the records of its bucket whose string key remembers another ' +
      'hash (a bucket holds up to two records on average)',
  },
];

/** Applies `patches` to the QuickJS sources in `dir`, or throws a build error naming the edit that no longer fits. */
export function applyQuickjsPatches(dir: string, patches: readonly QuickjsPatch[] = QUICKJS_PATCHES): void {
  for (const patch of patches) {
    const file = join(dir, patch.file);
    const text = readFileSync(file, 'utf8');
    const at = text.indexOf(patch.find);
    if (at < 0 || text.indexOf(patch.find, at + 1) >= 0) {
      throw buildError(`cannot apply the engine's edit to ${patch.file} (${patch.why.split(':')[0]}): the text it replaces is not there exactly once. The QuickJS sources changed; update QUICKJS_PATCHES in build/engine/quickjs-source.ts.`);
    }
    writeFileSync(file, text.slice(0, at) + patch.replace + text.slice(at + patch.find.length));
  }
}

/** Names the sources the engine compiles: the tarball's integrity and the engine's edits. */
export const QUICKJS_SOURCE_KEY = `${QUICKJS_INTEGRITY} ${createHash('sha256').update(JSON.stringify(QUICKJS_PATCHES)).digest('hex').slice(0, 16)}`;

function integrityOf(file: string): string {
  return `sha512-${createHash('sha512').update(readFileSync(file)).digest('base64')}`;
}

function buildError(message: string, cause?: unknown): MepError {
  return new MepError(LocalErrorCode.Build, message, { cause });
}

/**
 * Returns the folder holding the verified QuickJS sources under `cacheDir`, downloading and
 * extracting them the first time.
 */
export function ensureQuickjsSource(cacheDir: string): string {
  const srcDir = join(cacheDir, 'quickjs-2021-03-27');
  const marker = join(srcDir, '.integrity');
  if (existsSync(marker) && readFileSync(marker, 'utf8') === QUICKJS_SOURCE_KEY) return srcDir;

  mkdirSync(cacheDir, { recursive: true });
  const tarball = join(cacheDir, 'qjsc-0.3.0.tgz');
  if (!existsSync(tarball) || integrityOf(tarball) !== QUICKJS_INTEGRITY) {
    try {
      execFileSync('npm', ['pack', QUICKJS_PACKAGE, '--ignore-scripts', '--silent', '--pack-destination', cacheDir], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    } catch (e) {
      const stderr = (e as { stderr?: Buffer }).stderr?.toString().trim();
      throw buildError(`cannot fetch ${QUICKJS_PACKAGE} from the npm registry (needed for the QuickJS sources): ${stderr || String(e)}. Check network access to the registry and retry.`, e);
    }
  }
  const actual = integrityOf(tarball);
  if (actual !== QUICKJS_INTEGRITY) {
    rmSync(tarball, { force: true });
    throw buildError(`the ${QUICKJS_PACKAGE} tarball failed its integrity check (expected ${QUICKJS_INTEGRITY}, got ${actual}); it was deleted. Retry; if it persists the registry served different content.`);
  }

  const staging = join(cacheDir, `extract-${process.pid}`);
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  try {
    execFileSync('tar', ['-xzf', tarball, '-C', staging, '--strip-components=3', QUICKJS_DIR_IN_TARBALL], { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (e) {
    rmSync(staging, { recursive: true, force: true });
    throw buildError(`cannot extract ${QUICKJS_DIR_IN_TARBALL} from ${tarball}: ${String(e)}`, e);
  }
  const present = new Set(readdirSync(staging));
  const absent = QUICKJS_SOURCES.filter((f) => !present.has(f));
  if (absent.length > 0) throw buildError(`the ${QUICKJS_PACKAGE} tarball lacks ${absent.join(', ')}`);
  try {
    applyQuickjsPatches(staging);
  } catch (e) {
    rmSync(staging, { recursive: true, force: true });
    throw e;
  }
  writeFileSync(join(staging, '.integrity'), QUICKJS_SOURCE_KEY);
  rmSync(srcDir, { recursive: true, force: true });
  renameSync(staging, srcDir);
  return srcDir;
}

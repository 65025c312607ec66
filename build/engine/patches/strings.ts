/**
 * Edits to string access (issue 32). Measured with callgrind on the native build (the Avro
 * guest's work, the avro8 entry of docs/performance-log.md).
 */
import type { QuickjsPatch } from './types.ts';

export const STRING_PATCHES: readonly QuickjsPatch[] = [
  {
    file: 'quickjs.c',
    at: { fn: 'static inline void *strv(JSString *p)', sha256: 'cd7ffed0ccd1973d' },
    op: 'replace',
    text: String.raw`/* mep engine: a slice's or an indirect string's characters, out of line */
static no_inline void *strv_other(JSString *p)
{
    JSStringSlice *slice;

    if (p->kind == JS_STRING_KIND_SLICE) {
        slice = (void *)&p[1];
        return (char *)&slice->parent[1] + slice->start;
    }
    if (p->kind == JS_STRING_KIND_INDIRECT)
        return *(void **)&p[1];
    abort();
    return NULL;
}

/* mep engine: a string's characters; a normal string's (they follow it) inline, always (-Os kept some calls) */
static inline __attribute__((always_inline)) void *strv(JSString *p)
{
    if (likely(p->kind == JS_STRING_KIND_NORMAL))
        return (void *)&p[1];
    return strv_other(p);
}`,
    why:
      "every access to a string's characters (str8, str16) was a call to strv at -Os, which did not inline its switch " +
      "over the three kinds of string: 95 M of the Avro guest's 3,699 M native instructions. A normal string's " +
      'characters follow it: that case inline, slices and indirect strings in a call',
  },
];

/**
 * Tells the glue when a Date becomes calendar fields (issue 33): every getter, setter and text
 * form of a Date (`getFullYear`, `toISOString`, `toString`, `Date()`, …) goes through quickjs.c's
 * get_date_fields, so one call there lets the clock (glue/clock.c) warn only when a result could
 * show the fixed instant of an ungranted clock — not when a library merely times itself.
 */
import type { QuickjsPatch } from './types.ts';

export const DATE_FIELDS_PATCHES: readonly QuickjsPatch[] = [
  {
    file: 'quickjs.c',
    at: { line: 'return -1;', near: 'static __exception int get_date_fields(JSContext *ctx, JSValueConst obj,' },
    op: 'after',
    text: String.raw`#ifdef __wasm__
    { /* mep engine: the clock warns when a date it gave is shown (glue/clock.c) */
        void mep_date_fields_read(double t);
        mep_date_fields_read(dval);
    }
#endif`,
    why:
      'warn about an ungranted clock only when a result could depend on it: a date read from the virtual clock is shown ' +
      '(diff, liquidjs and pdf-lib read the clock only to time themselves, and warned on every run); a double compare per call',
  },
];

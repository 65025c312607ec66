/**
 * Test kit: which engine the guest runs on. Until the quickjs-ng engine lands, it is QuickJS
 * 2021-03-27, which cannot run some ES2021+ code (`/[\-]/u`, `/a/d`, `WeakRef`, `Error` cause):
 * tests of that code assert the specific failure on this engine instead of skipping, and the
 * real result on the new one.
 */
import { QUICKJS_FLAGS } from '../compile.ts';

/** True while the guest engine is QuickJS 2021-03-27 (its build defines that CONFIG_VERSION). */
export const ENGINE_QUICKJS_2021: boolean = QUICKJS_FLAGS.some((f) => f.includes('2021-03-27'));

/**
 * Edits to the interpreter's conditional jumps (issue 32). Measured with callgrind on the native
 * build (bench/callgrind.bench.ts); each edit's commit names its figures.
 */
import type { QuickjsPatch } from './types.ts';

/** The conditional jumps and the line of each that moves pc when the jump is taken. */
const BRANCHES = [
  { op: 'OP_if_true', jump: 'pc += (int32_t)get_u32(pc - 4) - 4;' },
  { op: 'OP_if_false', jump: 'pc += (int32_t)get_u32(pc - 4) - 4;' },
  { op: 'OP_if_true8', jump: 'pc += (int8_t)pc[-1] - 1;' },
  { op: 'OP_if_false8', jump: 'pc += (int8_t)pc[-1] - 1;' },
] as const;

export const BRANCH_PATCHES: readonly QuickjsPatch[] = BRANCHES.flatMap(({ op, jump }): QuickjsPatch[] => [
  {
    file: 'quickjs.c',
    at: { line: jump, near: `CASE(${op}):` },
    op: 'replace',
    text:
      `                    const uint8_t *mep_from = pc; /* mep engine: a backward jump polls interrupts */\n` +
      `                    ${jump}\n` +
      '                    if (pc < mep_from && unlikely(js_poll_interrupts(ctx)))\n' +
      '                        goto exception;',
    why: `poll interrupts in ${op} only when it jumps back: a loop whose test is at its end (do … while) still polls every turn`,
  },
  {
    file: 'quickjs.c',
    at: { line: 'if (unlikely(js_poll_interrupts(ctx)))', near: `CASE(${op}):` },
    op: 'replace',
    text: '                if (0) /* mep engine: polled above when the jump goes back */',
    why:
      `no interrupt poll in ${op} when it falls through or jumps forward: it cannot make a loop, and every loop's ` +
      'backward jump and every call poll. The GraphQL workload takes 3.4 million conditional jumps, nearly all forward, ' +
      'each counting down to the next poll',
  },
]);

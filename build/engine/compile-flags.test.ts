/**
 * The wasm build's compiler flags for libquickjs that V8's code for the engine depends on
 * (docs/performance-log.md, 2026-12-03 helper v8loop): counted by bench/wasm-callgrind, not timed,
 * so a flag dropped by a later edit would only show in the next whole run's ratio.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { QUICKJS_FLAGS } from './compile.ts';

const flags = suite('engine compile flags');

flags('should compile libquickjs without lifetime markers, so the interpreter loop jumps straight back to its dispatch', () => {
  // With them, clang's cleanup of `goto exception` out of a handler's block left a flag that every
  // bytecode tested on the way back (V8: 3.6 % more instructions on morphir-elm's compile).
  const at = QUICKJS_FLAGS.indexOf('-disable-lifetime-markers');
  assert.ok(at > 0, `QUICKJS_FLAGS lacks -disable-lifetime-markers: ${QUICKJS_FLAGS.join(' ')}`);
  assert.is(QUICKJS_FLAGS[at - 1], '-Xclang', 'the flag is a cc1 option: it must follow -Xclang');
});

flags('should compile libquickjs without tail merging, so every handler jumps back to one loop header', () => {
  // With it, the handlers' identical copies of sp and pc were merged into shared tails ahead of the
  // dispatch: three nested wasm loops, each a V8 loop header with its own stack check and phis.
  const at = QUICKJS_FLAGS.indexOf('-enable-tail-merge=false');
  assert.ok(at > 0, `QUICKJS_FLAGS lacks -enable-tail-merge=false: ${QUICKJS_FLAGS.join(' ')}`);
  assert.is(QUICKJS_FLAGS[at - 1], '-mllvm', 'the flag is an LLVM option: it must follow -mllvm');
});

flags.run();

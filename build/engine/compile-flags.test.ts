/**
 * The wasm build's compiler flags for libquickjs that V8's code for the engine depends on
 * (docs/performance-log.md, 2026-12-03 helper v8loop): counted by bench/wasm-callgrind, not timed,
 * so a flag dropped by a later edit would only show in the next whole run's ratio.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { COMMON_FLAGS, linkInvocation, QUICKJS_FLAGS } from './compile.ts';
import { ENGINE_WASM_OPT } from './opt-flags.ts';
import { findToolchain } from './toolchain.ts';

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

flags('should link the engine without clang running wasm-opt by itself, and run binaryen once at the level chosen', () => {
  // clang runs `wasm-opt -O<link level>` on its output when it finds one on PATH (Debian's binaryen
  // is in /usr/bin here): the engine's level must be ENGINE_WASM_OPT's, not the glue's -Os.
  const tc = findToolchain();
  // `-###`: clang prints the commands it would run, runs none; the file need not exist.
  const commands = (env: NodeJS.ProcessEnv): string => {
    const args = [...COMMON_FLAGS(tc), '-Os', 'engine.c', ...linkInvocation(tc).flags, '-o', 'engine.wasm', '-###'];
    const out = spawnSync(tc.clang, args, { env, encoding: 'utf8' });
    return `${out.stdout}${out.stderr}`;
  };
  const ours = commands(linkInvocation(tc).env);
  assert.match(ours, 'wasm-ld', 'the link step is missing from clang\'s commands');
  assert.not.match(ours, 'wasm-opt', `clang would run wasm-opt at the link:\n${ours}`);
  assert.ok(ENGINE_WASM_OPT.some((f) => /^-O/.test(f)), `ENGINE_WASM_OPT names no level: ${ENGINE_WASM_OPT.join(' ')}`);
});

flags.run();

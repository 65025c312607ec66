/**
 * The child of bench/wasm-callgrind.bench.ts, run by node under callgrind: one fresh instance of
 * the wasm engine at ENGINE compiles and runs the script at SCRIPT (a native-runner script: its
 * final `print(X);` becomes the guest's output) and prints the output.
 *
 *   node --import tsx bench/wasm-callgrind-child.ts ENGINE SCRIPT
 */
import { readFileSync } from 'node:fs';
import { createEngineRunner } from '../build/engine/index.ts';

const [engine, script] = process.argv.slice(2);
if (!engine || !script) throw new Error('usage: wasm-callgrind-child.ts ENGINE SCRIPT');
const body = readFileSync(script, 'utf8').replace(/print\(([^;]*)\);\s*$/, 'globalThis.run = function () { Host.outputString(String($1)); };\n');
const runner = await createEngineRunner(await WebAssembly.compile(readFileSync(engine)));
const compiled = runner.compile(body);
if (!compiled.ok) throw new Error(compiled.message);
const res = runner.invoke(compiled.bytecode, 'run');
if (res.error !== null) throw new Error(res.error);
console.log(new TextDecoder().decode(res.output ?? new Uint8Array()));

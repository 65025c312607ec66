/**
 * The test262 runner's sandbox: the wasm guest engine (build/engine, with the platform's globals)
 * run the way a host runs it, each test in a fresh instance. "Fresh" is the instance's memory
 * restored to its state right after `initialize-runtime`, which is what a host does when it
 * instantiates a snapshotted guest (a trap starts a new instance). The harness files are
 * compiled once and evaluated in each instance as scripts of their own; `print` and `$262` come
 * from {@link SANDBOX_HOST}, plain JavaScript in the guest: what a guest cannot do (realms,
 * agents, a separate global script) is listed in ./known.ts.
 */
import { readFileSync } from 'node:fs';
import { createEngineRunner, ensureEngine, type EngineRunner } from '../../build/engine/index.ts';
import type { EngineRun, RunOutcome } from './outcome.ts';

/** A run's wall-clock limit: the slowest tests (RegExp property escapes over every code point) take seconds, more on a loaded machine. */
const TIMEOUT_MS = 120_000;

/**
 * test262's host hooks in a guest: `print` writes a log line; `$262.detachArrayBuffer` is
 * `ArrayBuffer.prototype.transfer` (which detaches) on a buffer not yet detached, as the embedder's
 * JS_DetachArrayBuffer leaves a detached one alone; `$262.evalScript` is an indirect eval (not
 * a separate Script: ./known.ts). Both take what they use before any test code runs.
 */
export const SANDBOX_HOST = `(function () {
  'use strict';
  const log = console.log;
  const call = Function.prototype.call.bind(Function.prototype.call);
  const transfer = ArrayBuffer.prototype.transfer;
  const detached = Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, 'detached').get;
  const indirectEval = eval;
  globalThis.print = function print(text) { log(text); };
  globalThis.$262 = {
    global: globalThis,
    detachArrayBuffer: function detachArrayBuffer(buffer) { if (!call(detached, buffer)) call(transfer, buffer); },
    evalScript: function evalScript(source) { return indirectEval(source); },
  };
})();`;

/** The sandbox, one engine instance reused through memory restores. */
export interface SandboxRunner {
  run(job: EngineRun): Promise<RunOutcome>;
}

/** Creates the sandbox runner (builds the engine on first use). */
export async function createSandboxRunner(): Promise<SandboxRunner> {
  const { wasmPath } = await ensureEngine();
  const module = await WebAssembly.compile(readFileSync(wasmPath));
  let printed: string[] = [];
  let deadline = 0;
  const bytecode = new Map<string, Uint8Array>();
  let runner: EngineRunner;
  let image: Uint8Array;
  const fresh = async (): Promise<void> => {
    runner = await createEngineRunner(module, {
      onLog: (level, text) => void (level === 'info' && printed.push(text)),
      interrupt: () => Date.now() > deadline,
    });
    image = new Uint8Array((runner.instance.exports.memory as WebAssembly.Memory).buffer).slice();
  };
  await fresh();
  const restore = (): void => {
    const memory = new Uint8Array((runner.instance.exports.memory as WebAssembly.Memory).buffer);
    memory.set(image);
    if (memory.length > image.length) memory.fill(0, image.length);
  };
  const compiled = (key: string, source: string): Uint8Array => {
    let bc = bytecode.get(key);
    if (!bc) {
      const c = runner.compile(source);
      if (!c.ok) throw new Error(`test262 harness ${key} does not compile in the sandbox: ${c.message}`);
      bytecode.set(key, (bc = c.bytecode));
      restore();
    }
    return bc;
  };
  const host = compiled('sandbox-host', SANDBOX_HOST);
  return {
    async run(job) {
      printed = [];
      deadline = Date.now() + TIMEOUT_MS;
      try {
        const harness = job.includes.map((file) => compiled(file, readFileSync(file, 'utf8')));
        for (const bc of [host, ...harness]) {
          const r = runner.invoke(bc);
          if (r.error !== null) return { threw: true, printed: printed.join('\n'), error: `harness: ${r.error}` };
        }
        const c = runner.compile(job.source);
        if (!c.ok) return { threw: true, printed: printed.join('\n'), error: c.message };
        const r = runner.invoke(c.bytecode);
        return { threw: r.error !== null, printed: printed.join('\n'), error: r.error ?? '' };
      } catch (e) {
        await fresh(); // a trap leaves the instance's stack where it was
        return { threw: true, printed: printed.join('\n'), error: `crashed: ${String(e)}`, crashed: true };
      } finally {
        restore();
      }
    },
  };
}

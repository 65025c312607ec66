/**
 * Test kit: runs a script as a guest of the engine (its `__mep_exports` functions bound the way a
 * built guest's are, through `mep_guest_init` and `mep_call_export`, so promises settle through
 * the event loop), and the same script in this Node process, so a test can compare the sandbox
 * with Node. A script answers with `Host.outputString(text)`.
 */
import { ensureEngine } from '../index.ts';
import { createEngineRunner, type CallResult } from '../runner.ts';
import type { StubHostOptions } from '../stub-host.ts';

/** One log line the guest wrote. */
export interface GuestLog {
  level: 'debug' | 'info' | 'warn' | 'error';
  text: string;
}

/** A script loaded into a fresh engine instance. */
export interface ScriptGuest {
  /** Calls export `name`; the logs are those of this call only. */
  call(name: string, input?: string): CallResult & { text: string; logs: GuestLog[] };
}

let engineModule: Promise<WebAssembly.Module> | undefined;
const engine = (): Promise<WebAssembly.Module> =>
  (engineModule ??= ensureEngine().then(async ({ wasmPath }) => WebAssembly.compile(await import('node:fs').then((fs) => fs.readFileSync(wasmPath)))));

/**
 * Loads `source` (a script assigning `globalThis.__mep_exports = { name() {...} }`) into a fresh
 * engine instance with the stub host's grants in `options`. Throws with the engine's message
 * when the script does not compile or its top level throws.
 */
export async function loadScriptGuest(source: string, exportNames: string[], options: Omit<StubHostOptions, 'onLog'> = {}): Promise<ScriptGuest> {
  let logs: GuestLog[] = [];
  const runner = await createEngineRunner(await engine(), { ...options, onLog: (level, text) => logs.push({ level, text }) });
  const compiled = runner.compile(source);
  if (!compiled.ok) throw new Error(compiled.message);
  const names = new TextEncoder().encode(exportNames.map((n) => `${n}\0`).join(''));
  const blob = new Uint8Array(4 + compiled.bytecode.length + names.length);
  new DataView(blob.buffer).setUint32(0, compiled.bytecode.length, true);
  blob.set(compiled.bytecode, 4);
  blob.set(names, 4 + compiled.bytecode.length);
  const error = runner.guestInit(blob);
  if (error !== null) throw new Error(error);
  return {
    call(name, input = '') {
      const index = exportNames.indexOf(name);
      if (index < 0) throw new Error(`no export ${name}`);
      logs = [];
      const r = runner.callExport(index, new TextEncoder().encode(input));
      return { ...r, text: r.output ? new TextDecoder().decode(r.output) : '', logs };
    },
  };
}

/**
 * Runs the same script in this Node process (V8's own built-ins) and calls export `name`,
 * awaiting a promise it returns; resolves to what it passed to `Host.outputString`.
 */
export async function runScriptInNode(source: string, name: string, input = ''): Promise<string> {
  let output = '';
  const Host = { inputString: () => input, outputString: (s: string) => void (output = String(s)) };
  const holder: { __mep_exports?: Record<string, () => unknown> } = {};
  // The script assigns globalThis.__mep_exports: it gets a globalThis of its own that reads Node's.
  const scope = new Proxy(holder as Record<string | symbol, unknown>, { get: (t, k) => (k in t ? t[k] : (globalThis as Record<string | symbol, unknown>)[k]) });
  new Function('globalThis', 'Host', source)(scope, Host);
  const fn = holder.__mep_exports?.[name];
  if (typeof fn !== 'function') throw new Error(`the script exports no ${name}`);
  await fn();
  return output;
}

/**
 * What the wasm sandbox does not have, and what to use instead: the type check (typecheck.ts)
 * turns TypeScript's "cannot find name" errors on these names, and any use of an ES library
 * global the engine lacks (none since `Atomics` came in, issue 33), into a message that says so. `Intl` is there when the code
 * uses it: `mep build` bundles it (intl/intl-module.ts).
 */

/** A global the sandbox lacks: what to use instead, and whether Node.js has it (a process build does). */
interface Missing {
  instead: string;
  node: boolean;
}

const NETWORK: Missing = { instead: 'the guest has no network; take the data in the request (its params or options)', node: true };
const DOM: Missing = { instead: 'the guest is not a web page and has no DOM', node: false };
const MODULES: Missing = { instead: 'the guest is one ES module bundle: use import (mep build bundles what it imports)', node: true };
const STREAMS: Missing = { instead: 'there are no streams or blobs: work on strings and Uint8Array', node: true };
const THREADS: Missing = { instead: 'the guest runs on one thread: there are no workers or message channels', node: true };

/** Each global the sandbox lacks that code written for browsers or Node reaches for. */
export const MISSING_GLOBALS: Readonly<Record<string, Missing>> = {
  fetch: NETWORK, Request: NETWORK, Response: NETWORK, Headers: NETWORK, FormData: NETWORK, XMLHttpRequest: { ...NETWORK, node: false }, WebSocket: { ...NETWORK, node: false }, EventSource: { ...NETWORK, node: false },
  document: DOM, window: DOM, navigator: DOM, location: DOM, history: DOM, localStorage: DOM, sessionStorage: DOM, indexedDB: DOM,
  alert: DOM, confirm: DOM, prompt: DOM, HTMLElement: DOM, Element: DOM, requestAnimationFrame: DOM, MutationObserver: DOM,
  self: { instead: 'use globalThis', node: false },
  global: { instead: 'use globalThis', node: true },
  process: { instead: 'there is no process and no environment: read settings from the request (its options)', node: true },
  require: MODULES, module: MODULES, exports: MODULES, __dirname: MODULES, __filename: MODULES,
  Buffer: { instead: 'use Uint8Array, TextEncoder/TextDecoder and atob/btoa', node: true },
  setImmediate: { instead: 'use setTimeout(fn, 0) or queueMicrotask(fn)', node: true },
  clearImmediate: { instead: 'use clearTimeout with a setTimeout handle', node: true },
  WebAssembly: { instead: 'the guest cannot compile or run wasm modules of its own', node: true },
  Worker: { ...THREADS, node: false }, SharedWorker: { ...THREADS, node: false }, MessageChannel: THREADS, BroadcastChannel: THREADS, postMessage: { ...THREADS, node: false },
  Blob: STREAMS, File: STREAMS, FileReader: { ...STREAMS, node: false }, ReadableStream: STREAMS, WritableStream: STREAMS, TransformStream: STREAMS,
  CompressionStream: STREAMS, DecompressionStream: STREAMS,
};

/** Globals the ES2023 library declares but the sandbox's engine lacks (uses are reported apart). */
export const ABSENT_LIB_GLOBALS: readonly string[] = [];

/** TypeScript's codes for a name it cannot find (with or without a suggestion of a library or of types to install). */
const CANNOT_FIND = new Set([2304, 2552, 2580, 2582, 2583, 2584, 2591]);
/** "Property 'x' does not exist on type 'typeof globalThis'" and its implicit-any twin (7017) for `globalThis.x`. */
const NOT_ON_GLOBAL_THIS = new Set([2339, 7017]);
/** "Cannot find name 'x'. Do you need to change your target library? Try changing the 'lib' compiler option to include 'dom'." */
const DOM_SUGGESTED = 2584;
/** "Do you need to install type definitions for node?" */
const NODE_SUGGESTED = new Set([2580, 2591]);

/** The message for `name` missing in the sandbox (without the TS code). */
export function sandboxMessage(name: string): string | undefined {
  const m = MISSING_GLOBALS[name];
  return m ? `\`${name}\` is not available in the wasm sandbox: ${m.instead}` : undefined;
}

/**
 * The message to show instead of TypeScript's message `tsMessage` (error `code`, on the source
 * text `name`), or undefined to keep TypeScript's. `nodeTypes`: a process build checked with
 * Node's types (then nothing is rewritten: a name Node lacks is simply missing).
 */
export function missingGlobalMessage(code: number, name: string, tsMessage: string, runtime: 'wasm' | 'process', nodeTypes: boolean): string | undefined {
  const missing = CANNOT_FIND.has(code) || (NOT_ON_GLOBAL_THIS.has(code) && tsMessage.includes("'typeof globalThis'"));
  if (!missing || !/^[\p{L}_$][\p{L}\p{N}_$]*$/u.test(name)) return undefined;
  const m = MISSING_GLOBALS[name];
  if (runtime === 'process') {
    if (nodeTypes) return undefined;
    const nodeHasIt = m ? m.node : NODE_SUGGESTED.has(code);
    return nodeHasIt
      ? `\`${name}\` is a Node.js global, which a --runtime process build has, but the check does not know Node's globals: install them in the extension's project with 'npm install --save-dev @types/node'`
      : undefined;
  }
  if (m) return sandboxMessage(name);
  if (code === DOM_SUGGESTED) return `\`${name}\` is a browser (DOM) API, not available in the wasm sandbox: the guest is not a web page`;
  if (NODE_SUGGESTED.has(code)) return `\`${name}\` is a Node.js API, not available in the wasm sandbox; build with --runtime process to use Node's APIs`;
  return undefined;
}

// structuredClone (HTML's structured serialization, as Node's V8 does it): primitives, boxed
// primitives, plain objects (own enumerable string keys; the prototype is not kept), arrays
// (holes kept), Date, RegExp, Map, Set, ArrayBuffer, typed arrays, DataView and errors, with
// shared and cyclic references kept. Functions, symbols, promises, weak collections and class
// instances with internal slots the sandbox cannot copy throw a DataCloneError DOMException.
import { define } from './util.js';

const ERROR_TYPES = ['Error', 'EvalError', 'RangeError', 'ReferenceError', 'SyntaxError', 'TypeError', 'URIError'];

export function installClone(G) {
  const fail = (what) => new G.DOMException(`${what} could not be cloned.`, 'DataCloneError');
  const describe = (v) => {
    if (typeof v === 'function') return `${v.toString().slice(0, 60)}`;
    if (typeof v === 'symbol') return String(v);
    return `#<${v?.constructor?.name ?? 'Object'}>`;
  };
  const TypedArray = Object.getPrototypeOf(Uint8Array);

  function structuredClone(value, options) {
    if (arguments.length === 0) throw new TypeError('The "value" argument must be specified');
    const transfer = options?.transfer;
    if (transfer !== undefined && [...transfer].length > 0) {
      throw new G.DOMException('structuredClone with a transfer list is not supported in the wasm sandbox: clone without it (the buffers are copied).', 'DataCloneError');
    }
    const seen = new Map();
    const clone = (v) => {
      if (typeof v === 'function' || typeof v === 'symbol') throw fail(describe(v));
      if (v === null || typeof v !== 'object') return v;
      if (seen.has(v)) return seen.get(v);
      let out;
      const keep = (o) => { seen.set(v, o); return o; };
      if (Array.isArray(v)) {
        out = keep(new Array(v.length));
        for (const k of Object.keys(v)) out[k] = clone(v[k]);
        return out;
      }
      if (v instanceof Date) return keep(new Date(v.getTime()));
      if (v instanceof RegExp) return keep(new RegExp(v.source, v.flags));
      if (v instanceof ArrayBuffer) return keep(v.slice(0));
      if (v instanceof DataView) { const buffer = clone(v.buffer); return keep(new DataView(buffer, v.byteOffset, v.byteLength)); }
      if (v instanceof TypedArray) { const buffer = clone(v.buffer); return keep(new v.constructor(buffer, v.byteOffset, v.length)); }
      if (v instanceof Map) {
        out = keep(new Map());
        for (const [k, x] of v) out.set(clone(k), clone(x));
        return out;
      }
      if (v instanceof Set) {
        out = keep(new Set());
        for (const x of v) out.add(clone(x));
        return out;
      }
      if (v instanceof Error) {
        const name = ERROR_TYPES.includes(v.name) ? v.name : 'Error';
        out = keep(new G[name](String(v.message ?? '')));
        if (typeof v.stack === 'string') define(out, 'stack', v.stack);
        if (Object.prototype.hasOwnProperty.call(v, 'cause')) define(out, 'cause', clone(v.cause));
        return out;
      }
      if (v instanceof Boolean) return keep(new Boolean(v.valueOf()));
      if (v instanceof Number) return keep(new Number(v.valueOf()));
      if (v instanceof String) return keep(new String(v.valueOf()));
      if (typeof BigInt === 'function' && Object.prototype.toString.call(v) === '[object BigInt]') return keep(Object(v.valueOf()));
      if (v instanceof Promise || v instanceof WeakMap || v instanceof WeakSet || (typeof WeakRef === 'function' && v instanceof WeakRef)) throw fail(describe(v));
      if (G.DOMException && v instanceof G.DOMException) { out = keep(new G.DOMException(v.message, v.name)); return out; }
      out = keep({});
      for (const k of Object.keys(v)) out[k] = clone(v[k]);
      return out;
    };
    return clone(value);
  }
  define(G, 'structuredClone', structuredClone);
}

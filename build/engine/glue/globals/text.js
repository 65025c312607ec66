// TextEncoder and TextDecoder (WHATWG Encoding) for UTF-8, and UTF-16LE for the decoder: lone
// surrogates encode as U+FFFD; decoding replaces each maximal invalid subpart with U+FFFD or,
// with `fatal`, throws a TypeError; `ignoreBOM` and `{ stream: true }` behave as in Node. Valid
// UTF-8 (the usual case) is checked and converted in C, whatever its size.
import { define } from './util.js';

const LONE_SURROGATES = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const LONE_SURROGATE = new RegExp(LONE_SURROGATES.source);
const UTF8_LABELS = ['utf-8', 'utf8', 'unicode-1-1-utf-8', 'unicode11utf8', 'unicode20utf8', 'x-unicode20utf8'];
const UTF16LE_LABELS = ['utf-16le', 'utf-16', 'ucs-2', 'unicode', 'csunicode', 'iso-10646-ucs-2', 'unicodefeff'];

const invalidData = (encoding) => {
  const err = new TypeError(`The encoded data was not valid for encoding ${encoding}`);
  err.code = 'ERR_ENCODING_INVALID_ENCODED_DATA';
  return err;
};

/** Length of the maximal subpart of an ill-formed sequence at `i` (1 to 3 bytes), or 0 when it runs off the end. */
function subpartLength(b, i, end) {
  const c = b[i];
  let need = 0, lo = 0x80, hi = 0xbf;
  if (c >= 0xc2 && c <= 0xdf) need = 1;
  else if (c >= 0xe0 && c <= 0xef) { need = 2; if (c === 0xe0) lo = 0xa0; if (c === 0xed) hi = 0x9f; }
  else if (c >= 0xf0 && c <= 0xf4) { need = 3; if (c === 0xf0) lo = 0x90; if (c === 0xf4) hi = 0x8f; }
  else return 1;
  for (let k = 1; k <= need; k++) {
    if (i + k >= end) return 0;
    const x = b[i + k];
    if (x < lo || x > hi) return k;
    lo = 0x80; hi = 0xbf;
  }
  return need + 1; // not reached: a whole valid sequence is never passed here
}

export function installText(G, native) {
  const utf8 = (s) => (LONE_SURROGATE.test(s) ? s.replace(LONE_SURROGATES, '\uFFFD') : s);

  class TextEncoder {
    get encoding() { return 'utf-8'; }
    encode(input = '') { return new Uint8Array(native.utf8Encode(utf8(String(input)))); }
    encodeInto(input, dest) {
      const s = utf8(String(input));
      const bytes = new Uint8Array(native.utf8Encode(s));
      if (bytes.length <= dest.length) { dest.set(bytes); return { read: s.length, written: bytes.length }; }
      // Only whole characters fit: walk code points until the next would not.
      let read = 0, written = 0;
      for (const ch of s) {
        const cp = ch.codePointAt(0);
        const n = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
        if (written + n > dest.length) break;
        written += n;
        read += ch.length;
      }
      dest.set(bytes.subarray(0, written));
      return { read, written };
    }
  }
  Object.defineProperty(TextEncoder.prototype, Symbol.toStringTag, { value: 'TextEncoder', configurable: true });

  const viewOf = (input) => {
    if (ArrayBuffer.isView(input)) return new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
    if (input instanceof ArrayBuffer) return new Uint8Array(input);
    const err = new TypeError('The "input" argument must be an instance of ArrayBuffer or ArrayBufferView');
    err.code = 'ERR_INVALID_ARG_TYPE';
    throw err;
  };

  class TextDecoder {
    constructor(label = 'utf-8', options = {}) {
      const l = String(label).trim().toLowerCase();
      if (UTF8_LABELS.includes(l)) this._encoding = 'utf-8';
      else if (UTF16LE_LABELS.includes(l)) this._encoding = 'utf-16le';
      else {
        const err = new RangeError(`The "${label}" encoding is not supported (the sandbox decodes utf-8 and utf-16le)`);
        err.code = 'ERR_ENCODING_NOT_SUPPORTED';
        throw err;
      }
      this._fatal = !!options.fatal;
      this._ignoreBOM = !!options.ignoreBOM;
      this._pending = null; // bytes of an incomplete sequence kept by { stream: true }
      this._bomSeen = false;
    }
    get encoding() { return this._encoding; }
    get fatal() { return this._fatal; }
    get ignoreBOM() { return this._ignoreBOM; }
    decode(input, options = {}) {
      let bytes = input === undefined ? new Uint8Array(0) : viewOf(input);
      const stream = !!options.stream;
      if (this._pending) {
        const joined = new Uint8Array(this._pending.length + bytes.length);
        joined.set(this._pending);
        joined.set(bytes, this._pending.length);
        bytes = joined;
        this._pending = null;
      }
      let text = this._encoding === 'utf-8' ? this._utf8(bytes, stream) : this._utf16(bytes, stream);
      if (!this._bomSeen && text.length > 0) {
        this._bomSeen = true;
        if (!this._ignoreBOM && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      }
      if (!stream) this._bomSeen = false;
      return text;
    }
    _utf8(b, stream) {
      const end = b.length;
      let out = '';
      for (let i = 0; i < end;) {
        const n = native.utf8Prefix(b.buffer, b.byteOffset + i, end - i);
        if (n > 0) out += native.utf8Decode(b.buffer, b.byteOffset + i, n);
        i += n;
        if (i >= end) break;
        const k = subpartLength(b, i, end);
        if (k === 0) { // an incomplete sequence at the end
          if (stream) { this._pending = b.slice(i); break; }
          if (this._fatal) throw invalidData('utf-8');
          out += '\uFFFD';
          break;
        }
        if (this._fatal) throw invalidData('utf-8');
        out += '\uFFFD';
        i += k;
      }
      return out;
    }
    _utf16(b, stream) {
      let end = b.length;
      if (end % 2 === 1) {
        if (stream) { this._pending = b.slice(end - 1); end--; }
        else if (this._fatal) throw invalidData('utf-16le');
      }
      let out = '';
      for (let i = 0; i + 1 < end; i += 2) out += String.fromCharCode(b[i] | (b[i + 1] << 8));
      if (stream && out.length > 0 && /[\uD800-\uDBFF]$/.test(out)) {
        const keep = b.slice(end - 2, end);
        this._pending = this._pending ? Uint8Array.of(...keep, ...this._pending) : keep;
        out = out.slice(0, -1);
      }
      if (LONE_SURROGATE.test(out)) {
        if (this._fatal) throw invalidData('utf-16le');
        out = out.replace(LONE_SURROGATES, '\uFFFD');
      }
      if (!stream && end < b.length) out += '\uFFFD';
      return out;
    }
  }
  Object.defineProperty(TextDecoder.prototype, Symbol.toStringTag, { value: 'TextDecoder', configurable: true });
  define(G, 'TextEncoder', TextEncoder);
  define(G, 'TextDecoder', TextDecoder);
}

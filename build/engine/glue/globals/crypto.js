// crypto.getRandomValues and crypto.randomUUID, with the host's randomness grant. Without it
// they throw a NotAllowedError DOMException naming the grant: a UUID or key that silently
// repeated would be worse than none. (Math.random repeats per call instead, with a warning.)
import { define } from './util.js';

export function installCrypto(G, native) {
  const INTEGER = [Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array, BigInt64Array, BigUint64Array];
  const refuse = () =>
    new G.DOMException(
      'crypto.getRandomValues: the host grants this extension no randomness. Grant it with "permissions": { "random": true } in extension.json, mep --allow-random for an extension run by path, or grants: { random: true } in createWasmTransport.',
      'NotAllowedError',
    );
  const crypto = {
    getRandomValues(view) {
      if (!INTEGER.some((T) => view instanceof T)) throw new G.DOMException('The data argument must be an integer-type TypedArray', 'TypeMismatchError');
      if (view.byteLength > 65536) throw new G.DOMException(`The ArrayBufferView's byte length (${view.byteLength}) exceeds the number of bytes of entropy available via this API (65536)`, 'QuotaExceededError');
      if (!native.randomFill(view)) throw refuse();
      return view;
    },
    randomUUID() {
      const b = crypto.getRandomValues(new Uint8Array(16));
      b[6] = (b[6] & 0x0f) | 0x40;
      b[8] = (b[8] & 0x3f) | 0x80;
      const h = Array.from(b, (x) => (x + 256).toString(16).slice(1)).join('');
      return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
    },
  };
  Object.defineProperty(crypto, Symbol.toStringTag, { value: 'Crypto', configurable: true });
  define(G, 'crypto', crypto);
}

// atob and btoa (HTML's forgiving base64), throwing an InvalidCharacterError DOMException as
// Node and browsers do.
import { define } from './util.js';

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

export function installBase64(G) {
  const invalid = (message) => new G.DOMException(message, 'InvalidCharacterError');
  define(G, 'btoa', function btoa(data) {
    if (arguments.length === 0) throw new TypeError('The "data" argument must be specified');
    const s = String(data);
    let out = '';
    for (let i = 0; i < s.length; i += 3) {
      const a = s.charCodeAt(i), b = s.charCodeAt(i + 1), c = s.charCodeAt(i + 2);
      if (a > 255 || b > 255 || c > 255) throw invalid('Invalid character');
      const n = (a << 16) | ((b || 0) << 8) | (c || 0);
      out += B64[n >> 18] + B64[(n >> 12) & 63] + (i + 1 < s.length ? B64[(n >> 6) & 63] : '=') + (i + 2 < s.length ? B64[n & 63] : '=');
    }
    return out;
  });
  define(G, 'atob', function atob(data) {
    if (arguments.length === 0) throw new TypeError('The "data" argument must be specified');
    let s = String(data).replace(/[\t\n\f\r ]/g, '');
    if (s.length % 4 === 0) s = s.replace(/={1,2}$/, '');
    if (s.length % 4 === 1 || /[^A-Za-z0-9+/]/.test(s)) throw invalid('The string to be decoded is not correctly encoded.');
    let out = '', bits = 0, n = 0;
    for (let i = 0; i < s.length; i++) {
      n = (n << 6) | B64.indexOf(s[i]);
      bits += 6;
      if (bits >= 8) { bits -= 8; out += String.fromCharCode((n >> bits) & 255); }
    }
    return out;
  });
}

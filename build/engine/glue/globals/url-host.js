// Hosts of the WHATWG URL standard: domains (to ASCII, with punycode for non-ASCII labels),
// IPv4 (with the standard's decimal, octal and hex parts), IPv6 in brackets, and the opaque hosts
// of non-special schemes. A failure returns null (the URL parser throws).

const FORBIDDEN_HOST = /[\0\t\n\r #/:<>?@[\\\]^|]/;
const FORBIDDEN_DOMAIN = /[\0-\x1f\t\n\r #%/:<>?@[\\\]^|\x7f]/;
const C0_OR_ABOVE = (c) => c < 0x20 || c > 0x7e;

/** Percent-encodes the UTF-8 bytes of every character of `s` that `inSet` says to. */
export function percentEncode(s, inSet) {
  let out = '';
  for (const ch of s) {
    const cp = ch.codePointAt(0);
    if (!inSet(cp)) { out += ch; continue; }
    for (const b of utf8Bytes(ch)) out += `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

function utf8Bytes(ch) {
  const cp = ch.codePointAt(0);
  if (cp >= 0xd800 && cp <= 0xdfff) return [0xef, 0xbf, 0xbd]; // a lone surrogate is U+FFFD
  if (cp < 0x80) return [cp];
  if (cp < 0x800) return [0xc0 | (cp >> 6), 0x80 | (cp & 63)];
  if (cp < 0x10000) return [0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63)];
  return [0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 63), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63)];
}

/** Percent-decodes `s` to bytes (a `%` not followed by two hex digits stays as it is). */
export function percentDecodeBytes(s) {
  const bytes = [];
  for (const ch of s) bytes.push(...utf8Bytes(ch));
  const out = [];
  for (let i = 0; i < bytes.length; i++) {
    const h = (b) => (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66);
    if (bytes[i] === 0x25 && h(bytes[i + 1]) && h(bytes[i + 2])) {
      out.push(parseInt(String.fromCharCode(bytes[i + 1], bytes[i + 2]), 16));
      i += 2;
    } else out.push(bytes[i]);
  }
  return Uint8Array.from(out);
}

// ---- punycode (RFC 3492), encoding only: the URL parser needs ToASCII ----
function punycode(input) {
  const cps = Array.from(input, (c) => c.codePointAt(0));
  const base = 36, tMin = 1, tMax = 26, skew = 38, damp = 700;
  let n = 128, delta = 0, bias = 72;
  let out = cps.filter((c) => c < 0x80).map((c) => String.fromCharCode(c)).join('');
  const basic = out.length;
  let h = basic;
  if (basic > 0) out += '-';
  const digit = (d) => String.fromCharCode(d + 22 + 75 * (d < 26));
  const adapt = (d, count, first) => {
    d = first ? Math.floor(d / damp) : d >> 1;
    d += Math.floor(d / count);
    let k = 0;
    for (; d > ((base - tMin) * tMax) >> 1; k += base) d = Math.floor(d / (base - tMin));
    return Math.floor(k + ((base - tMin + 1) * d) / (d + skew));
  };
  while (h < cps.length) {
    const m = Math.min(...cps.filter((c) => c >= n));
    delta += (m - n) * (h + 1);
    n = m;
    for (const c of cps) {
      if (c < n) delta++;
      if (c === n) {
        let q = delta;
        for (let k = base; ; k += base) {
          const t = k <= bias ? tMin : k >= bias + tMax ? tMax : k - bias;
          if (q < t) break;
          out += digit(t + ((q - t) % (base - t)));
          q = Math.floor((q - t) / (base - t));
        }
        out += digit(q);
        bias = adapt(delta, h + 1, h === basic);
        delta = 0;
        h++;
      }
    }
    delta++;
    n++;
  }
  return out;
}

/** UTS 46 ToASCII as URLs use it: case-folded and NFKC-normalized labels, non-ASCII ones as xn--. */
function domainToAscii(domain) {
  // Full stops of other scripts separate labels too.
  const mapped = domain.replace(/[\u3002\uff0e\uff61]/g, '.').normalize('NFKC').toLowerCase().replace(/[\u00ad\u200b-\u200d\u2060\ufeff]/g, '');
  if (!/[^\x00-\x7f]/.test(mapped)) return mapped;
  return mapped.split('.').map((label) => (/[^\x00-\x7f]/.test(label) ? `xn--${punycode(label)}` : label)).join('.');
}

function parseIpv4Number(s) {
  if (s === '') return NaN;
  let radix = 10;
  if (/^0[xX]/.test(s)) { s = s.slice(2); radix = 16; } else if (s.length > 1 && s[0] === '0') { s = s.slice(1); radix = 8; }
  if (s === '') return 0;
  const valid = radix === 16 ? /^[0-9a-fA-F]+$/ : radix === 8 ? /^[0-7]+$/ : /^[0-9]+$/;
  if (!valid.test(s)) return NaN;
  return parseInt(s, radix);
}

function endsInNumber(host) {
  const parts = host.split('.');
  if (parts[parts.length - 1] === '') { if (parts.length === 1) return false; parts.pop(); }
  const last = parts[parts.length - 1];
  if (/^[0-9]+$/.test(last)) return true;
  return !Number.isNaN(parseIpv4Number(last)) && /^0[xX]/.test(last);
}

function parseIpv4(host) {
  const parts = host.split('.');
  if (parts[parts.length - 1] === '' && parts.length > 1) parts.pop();
  if (parts.length > 4) return null;
  const nums = parts.map(parseIpv4Number);
  if (nums.some(Number.isNaN)) return null;
  if (nums.slice(0, -1).some((x) => x > 255)) return null;
  if (nums[nums.length - 1] >= 256 ** (5 - nums.length)) return null;
  let ipv4 = nums[nums.length - 1];
  for (let i = 0; i < nums.length - 1; i++) ipv4 += nums[i] * 256 ** (3 - i);
  return [ipv4 >>> 24, (ipv4 >>> 16) & 255, (ipv4 >>> 8) & 255, ipv4 & 255].join('.');
}

function parseIpv6(input) {
  const a = [0, 0, 0, 0, 0, 0, 0, 0];
  let piece = 0, compress = null, i = 0;
  const cp = (k) => input[k];
  if (cp(i) === ':') { if (cp(i + 1) !== ':') return null; i += 2; compress = ++piece; }
  while (i < input.length) {
    if (piece === 8) return null;
    if (cp(i) === ':') { if (compress !== null) return null; i++; compress = ++piece; continue; }
    let value = 0, length = 0;
    while (length < 4 && /[0-9a-fA-F]/.test(cp(i) ?? '')) { value = value * 16 + parseInt(cp(i), 16); i++; length++; }
    if (cp(i) === '.') {
      if (length === 0) return null;
      i -= length;
      if (piece > 6) return null;
      let seen = 0;
      while (i < input.length) {
        let v = null;
        if (seen > 0) { if (cp(i) === '.' && seen < 4) i++; else return null; }
        if (!/[0-9]/.test(cp(i) ?? '')) return null;
        while (/[0-9]/.test(cp(i) ?? '')) {
          const n = +cp(i);
          if (v === null) v = n; else if (v === 0) return null; else v = v * 10 + n;
          if (v > 255) return null;
          i++;
        }
        a[piece] = a[piece] * 256 + v;
        seen++;
        if (seen === 2 || seen === 4) piece++;
      }
      if (seen !== 4) return null;
      break;
    } else if (cp(i) === ':') { i++; if (i >= input.length) return null; } else if (i < input.length) return null;
    a[piece++] = value;
  }
  if (compress !== null) {
    let swaps = piece - compress;
    piece = 7;
    while (piece !== 0 && swaps > 0) { [a[piece], a[compress + swaps - 1]] = [a[compress + swaps - 1], a[piece]]; piece--; swaps--; }
  } else if (piece !== 8) return null;
  // Serialize with the longest run of two or more zero pieces compressed.
  let best = -1, bestLen = 1;
  for (let s = 0; s < 8;) {
    let e = s;
    while (e < 8 && a[e] === 0) e++;
    if (e - s > bestLen) { best = s; bestLen = e - s; }
    s = e === s ? s + 1 : e;
  }
  let out = '';
  for (let k = 0; k < 8; k++) {
    if (k === best) { out += k === 0 ? '::' : ':'; k += bestLen - 1; continue; }
    out += a[k].toString(16) + (k < 7 ? ':' : '');
  }
  return `[${out}]`;
}

/** The host parser: the serialized host, or null when `input` is not a valid host. */
export function parseHost(input, special) {
  if (input.startsWith('[')) return input.endsWith(']') ? parseIpv6(input.slice(1, -1)) : null;
  if (!special) return FORBIDDEN_HOST.test(input) ? null : percentEncode(input, C0_OR_ABOVE);
  const domain = new TextDecoder().decode(percentDecodeBytes(input));
  const ascii = domainToAscii(domain);
  if (ascii === '' || FORBIDDEN_DOMAIN.test(ascii)) return null;
  return endsInNumber(ascii) ? parseIpv4(ascii) : ascii;
}

// The WHATWG URL standard's basic URL parser (special schemes http, https, ws, wss, ftp and file;
// opaque paths and hosts for the others), with the state overrides the URL setters use, and its
// serializer. url.js builds URL and URLSearchParams on them.
import { parseHost, percentEncode } from './url-host.js';

const SPECIAL = { 'ftp:': 21, 'file:': null, 'http:': 80, 'https:': 443, 'ws:': 80, 'wss:': 443 };
const C0 = (c) => c < 0x20 || c > 0x7e;
const FRAGMENT = (c) => C0(c) || c === 0x20 || c === 0x22 || c === 0x3c || c === 0x3e || c === 0x60;
const QUERY = (c) => C0(c) || c === 0x20 || c === 0x22 || c === 0x23 || c === 0x3c || c === 0x3e;
const SPECIAL_QUERY = (c) => QUERY(c) || c === 0x27;
const PATH = (c) => QUERY(c) || c === 0x3f || c === 0x60 || c === 0x7b || c === 0x7d;
export const USERINFO = (c) => PATH(c) || c === 0x2f || c === 0x3a || c === 0x3b || c === 0x3d || c === 0x40 || (c >= 0x5b && c <= 0x5d) || c === 0x7c;
export const FORM = (c) => !((c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x2a || c === 0x2d || c === 0x2e || c === 0x5f);

const ALPHA = /[A-Za-z]/;
const isDrive = (s) => s.length === 2 && ALPHA.test(s[0]) && (s[1] === ':' || s[1] === '|');
const isNormalizedDrive = (s) => s.length === 2 && ALPHA.test(s[0]) && s[1] === ':';
const startsWithDrive = (s, i) => isDrive(s.slice(i, i + 2)) && (i + 2 === s.length || '/\\?#'.includes(s[i + 2]));
const isSingleDot = (s) => s === '.' || s.toLowerCase() === '%2e';
const isDoubleDot = (s) => ['..', '.%2e', '%2e.', '%2e%2e'].includes(s.toLowerCase());

export const failure = (input, base) => {
  const err = new TypeError(`Invalid URL: ${input}${base === undefined ? '' : ` (base ${base})`}`);
  err.code = 'ERR_INVALID_URL';
  err.input = input;
  return err;
};

const blank = () => ({ scheme: '', username: '', password: '', host: null, port: null, path: [], opaque: null, query: null, fragment: null });
const shorten = (u) => {
  if (u.scheme === 'file' && u.path.length === 1 && isNormalizedDrive(u.path[0])) return;
  u.path.pop();
};

/** The basic URL parser; returns the record, or null on failure. `u` and `state` for the setters. */
export function parse(input, base, u, state) {
  if (!u) {
    u = blank();
    input = input.replace(/^[\x00-\x20]+|[\x00-\x20]+$/g, '');
  }
  input = input.replace(/[\t\n\r]/g, '');
  const override = state;
  state = state ?? 'scheme start';
  let buffer = '', atSeen = false, insideBrackets = false, passwordSeen = false;
  const cps = Array.from(input);
  for (let p = 0; p <= cps.length; p++) {
    const c = cps[p]; // undefined: EOF
    const rest = () => cps.slice(p + 1).join('');
    const special = u.scheme + ':' in SPECIAL;
    switch (state) {
      case 'scheme start':
        if (c !== undefined && ALPHA.test(c)) { buffer += c.toLowerCase(); state = 'scheme'; }
        else if (!override) { state = 'no scheme'; p--; }
        else return null;
        break;
      case 'scheme':
        if (c !== undefined && /[A-Za-z0-9+\-.]/.test(c)) buffer += c.toLowerCase();
        else if (c === ':') {
          if (override) {
            if ((u.scheme + ':' in SPECIAL) !== (buffer + ':' in SPECIAL)) return u;
            if ((u.username || u.password || u.port !== null) && buffer === 'file') return u;
            if (u.scheme === 'file' && u.host === '') return u;
          }
          u.scheme = buffer;
          if (override) { if (u.port === SPECIAL[u.scheme + ':']) u.port = null; return u; }
          buffer = '';
          if (u.scheme === 'file') state = 'file';
          else if (u.scheme + ':' in SPECIAL && base && base.scheme === u.scheme) state = 'special relative or authority';
          else if (u.scheme + ':' in SPECIAL) state = 'special authority slashes';
          else if (cps[p + 1] === '/') { state = 'path or authority'; p++; }
          else { u.opaque = ''; state = 'opaque path'; }
        } else if (!override) { buffer = ''; state = 'no scheme'; p = -1; }
        else return null;
        break;
      case 'no scheme':
        if (!base || (base.opaque !== null && c !== '#')) return null;
        if (base.opaque !== null && c === '#') {
          Object.assign(u, { scheme: base.scheme, path: [], opaque: base.opaque, query: base.query, fragment: '' });
          state = 'fragment';
        } else if (base.scheme !== 'file') { state = 'relative'; p--; }
        else { state = 'file'; p--; }
        break;
      case 'special relative or authority':
        if (c === '/' && cps[p + 1] === '/') { state = 'special authority ignore slashes'; p++; }
        else { state = 'relative'; p--; }
        break;
      case 'path or authority':
        if (c === '/') state = 'authority'; else { state = 'path'; p--; }
        break;
      case 'relative':
        u.scheme = base.scheme;
        if (c === '/') state = 'relative slash';
        else if (special && c === '\\') state = 'relative slash';
        else {
          Object.assign(u, { username: base.username, password: base.password, host: base.host, port: base.port, path: base.path.slice(), query: base.query });
          if (c === '?') { u.query = ''; state = 'query'; }
          else if (c === '#') { u.fragment = ''; state = 'fragment'; }
          else if (c !== undefined) { u.query = null; shorten(u); state = 'path'; p--; }
        }
        break;
      case 'relative slash':
        if (special && (c === '/' || c === '\\')) state = 'special authority ignore slashes';
        else if (c === '/') state = 'authority';
        else { Object.assign(u, { username: base.username, password: base.password, host: base.host, port: base.port }); state = 'path'; p--; }
        break;
      case 'special authority slashes':
        if (c === '/' && cps[p + 1] === '/') { state = 'special authority ignore slashes'; p++; }
        else { state = 'special authority ignore slashes'; p--; }
        break;
      case 'special authority ignore slashes':
        if (c !== '/' && c !== '\\') { state = 'authority'; p--; }
        break;
      case 'authority':
        if (c === '@') {
          if (atSeen) buffer = '%40' + buffer;
          atSeen = true;
          for (const ch of buffer) {
            if (ch === ':' && !passwordSeen) { passwordSeen = true; continue; }
            const enc = percentEncode(ch, USERINFO);
            if (passwordSeen) u.password += enc; else u.username += enc;
          }
          buffer = '';
        } else if (c === undefined || c === '/' || c === '?' || c === '#' || (special && c === '\\')) {
          if (atSeen && buffer === '') return null;
          p -= Array.from(buffer).length + 1;
          buffer = '';
          state = 'host';
        } else buffer += c;
        break;
      case 'host':
      case 'hostname':
        if (override && u.scheme === 'file') { p--; state = 'file host'; }
        else if (c === ':' && !insideBrackets) {
          if (buffer === '') return null;
          if (override === 'hostname') return null;
          const host = parseHost(buffer, special);
          if (host === null) return null;
          u.host = host; buffer = ''; state = 'port';
        } else if (c === undefined || c === '/' || c === '?' || c === '#' || (special && c === '\\')) {
          p--;
          if (special && buffer === '') return null;
          if (override && buffer === '' && (u.username || u.password || u.port !== null)) return u;
          const host = parseHost(buffer, special);
          if (host === null) return null;
          u.host = host; buffer = ''; state = 'path start';
          if (override) return u;
        } else {
          if (c === '[') insideBrackets = true;
          if (c === ']') insideBrackets = false;
          buffer += c;
        }
        break;
      case 'port':
        if (c !== undefined && /[0-9]/.test(c)) buffer += c;
        else if (c === undefined || c === '/' || c === '?' || c === '#' || (special && c === '\\') || override) {
          if (buffer !== '') {
            const port = parseInt(buffer, 10);
            if (port > 65535) return null;
            u.port = SPECIAL[u.scheme + ':'] === port ? null : port;
            buffer = '';
          }
          if (override) return u;
          state = 'path start'; p--;
        } else return null;
        break;
      case 'file':
        u.scheme = 'file';
        u.host = '';
        if (c === '/' || c === '\\') state = 'file slash';
        else if (base && base.scheme === 'file') {
          u.host = base.host; u.path = base.path.slice(); u.query = base.query;
          if (c === '?') { u.query = ''; state = 'query'; }
          else if (c === '#') { u.fragment = ''; state = 'fragment'; }
          else if (c !== undefined) {
            u.query = null;
            if (!startsWithDrive(input, cps.slice(0, p).join('').length)) shorten(u); else u.path = [];
            state = 'path'; p--;
          }
        } else { state = 'path'; p--; }
        break;
      case 'file slash':
        if (c === '/' || c === '\\') state = 'file host';
        else {
          if (base && base.scheme === 'file') {
            u.host = base.host;
            if (!startsWithDrive(input, cps.slice(0, p).join('').length) && base.path[0] !== undefined && isNormalizedDrive(base.path[0])) u.path.push(base.path[0]);
          }
          state = 'path'; p--;
        }
        break;
      case 'file host':
        if (c === undefined || c === '/' || c === '\\' || c === '?' || c === '#') {
          p--;
          if (!override && isDrive(buffer)) state = 'path';
          else if (buffer === '') { u.host = ''; if (override) return u; state = 'path start'; }
          else {
            let host = parseHost(buffer, true);
            if (host === null) return null;
            if (host === 'localhost') host = '';
            u.host = host;
            if (override) return u;
            buffer = ''; state = 'path start';
          }
        } else buffer += c;
        break;
      case 'path start':
        if (special) { state = 'path'; if (c !== '/' && c !== '\\') p--; }
        else if (!override && c === '?') { u.query = ''; state = 'query'; }
        else if (!override && c === '#') { u.fragment = ''; state = 'fragment'; }
        else if (c !== undefined) { state = 'path'; if (c !== '/') p--; }
        else if (override && u.host === null) u.path.push('');
        break;
      case 'path':
        if (c === undefined || c === '/' || (special && c === '\\') || (!override && (c === '?' || c === '#'))) {
          if (isDoubleDot(buffer)) {
            shorten(u);
            if (c !== '/' && !(special && c === '\\')) u.path.push('');
          } else if (isSingleDot(buffer) && c !== '/' && !(special && c === '\\')) u.path.push('');
          else if (!isSingleDot(buffer)) {
            if (u.scheme === 'file' && u.path.length === 0 && isDrive(buffer)) buffer = buffer[0] + ':';
            u.path.push(buffer);
          }
          buffer = '';
          if (c === '?') { u.query = ''; state = 'query'; }
          if (c === '#') { u.fragment = ''; state = 'fragment'; }
        } else buffer += percentEncode(c, PATH);
        break;
      case 'opaque path':
        if (c === '?') { u.query = ''; state = 'query'; }
        else if (c === '#') { u.fragment = ''; state = 'fragment'; }
        else if (c !== undefined) u.opaque += percentEncode(c, C0);
        break;
      case 'query':
        if ((!override && c === '#') || c === undefined) {
          u.query += percentEncode(buffer, special ? SPECIAL_QUERY : QUERY);
          buffer = '';
          if (c === '#') { u.fragment = ''; state = 'fragment'; }
        } else buffer += c;
        break;
      case 'fragment':
        if (c !== undefined) u.fragment += percentEncode(c, FRAGMENT);
        break;
    }
    void rest;
  }
  return u;
}

export function serializePath(u) {
  if (u.opaque !== null) return u.opaque;
  return u.path.map((s) => `/${s}`).join('');
}
export function serialize(u, noFragment) {
  let out = `${u.scheme}:`;
  if (u.host !== null) {
    out += '//';
    if (u.username || u.password) out += u.username + (u.password ? `:${u.password}` : '') + '@';
    out += u.host + (u.port === null ? '' : `:${u.port}`);
  } else if (u.opaque === null && u.path.length > 1 && u.path[0] === '') out += '/.';
  out += serializePath(u);
  if (u.query !== null) out += `?${u.query}`;
  if (!noFragment && u.fragment !== null) out += `#${u.fragment}`;
  return out;
}

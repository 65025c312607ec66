// URL and URLSearchParams on the WHATWG parser (url-parse.js): the setters run the parser with a
// state override, and the query is application/x-www-form-urlencoded.
import { define } from './util.js';
import { percentDecodeBytes, percentEncode } from './url-host.js';
import { FORM, USERINFO, failure, parse, serialize, serializePath } from './url-parse.js';

// ---- application/x-www-form-urlencoded ----
const formDecode = (s) => new TextDecoder().decode(percentDecodeBytes(s.replace(/\+/g, ' ')));
const formEncode = (s) => percentEncode(s, FORM).replace(/%20/g, '+');
const parseForm = (s) => s.split('&').filter((x) => x !== '').map((x) => { const i = x.indexOf('='); return i < 0 ? [formDecode(x), ''] : [formDecode(x.slice(0, i)), formDecode(x.slice(i + 1))]; });
const toUSV = (s) => String(s).replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');

export function installUrl(G) {
  const RECORD = Symbol('url');
  const LIST = Symbol('list');
  const OWNER = Symbol('owner');

  class URLSearchParams {
    constructor(init = '') {
      let list = [];
      if (init instanceof URLSearchParams) list = init[LIST].map((p) => [...p]);
      else if (typeof init === 'object' && init !== null) {
        if (typeof init[Symbol.iterator] === 'function') {
          for (const pair of init) {
            const p = [...pair];
            if (p.length !== 2) throw new TypeError('Each query pair must be an iterable [name, value] tuple');
            list.push([toUSV(p[0]), toUSV(p[1])]);
          }
        } else for (const k of Object.keys(init)) list.push([toUSV(k), toUSV(init[k])]);
      } else {
        const s = toUSV(init);
        list = parseForm(s.startsWith('?') ? s.slice(1) : s);
      }
      define(this, LIST, list);
      define(this, OWNER, null);
    }
    _update() {
      const owner = this[OWNER];
      if (!owner) return;
      const s = this.toString();
      owner.query = s === '' ? null : s;
    }
    get size() { return this[LIST].length; }
    append(name, value) { this[LIST].push([toUSV(name), toUSV(value)]); this._update(); }
    delete(name, value) {
      const n = toUSV(name);
      this[LIST] = this[LIST].filter(([k, v]) => !(k === n && (value === undefined || v === toUSV(value))));
      this._update();
    }
    get(name) { const n = toUSV(name); const p = this[LIST].find(([k]) => k === n); return p ? p[1] : null; }
    getAll(name) { const n = toUSV(name); return this[LIST].filter(([k]) => k === n).map(([, v]) => v); }
    has(name, value) { const n = toUSV(name); return this[LIST].some(([k, v]) => k === n && (value === undefined || v === toUSV(value))); }
    set(name, value) {
      const n = toUSV(name), v = toUSV(value);
      const i = this[LIST].findIndex(([k]) => k === n);
      if (i < 0) this[LIST].push([n, v]);
      else { this[LIST][i][1] = v; this[LIST] = this[LIST].filter(([k], j) => j <= i || k !== n); }
      this._update();
    }
    sort() {
      // Stable, by UTF-16 code units of the names.
      this[LIST] = this[LIST].map((p, i) => [p, i]).sort((a, b) => (a[0][0] < b[0][0] ? -1 : a[0][0] > b[0][0] ? 1 : a[1] - b[1])).map(([p]) => p);
      this._update();
    }
    forEach(fn, thisArg) { for (const [k, v] of this[LIST]) fn.call(thisArg, v, k, this); }
    keys() { return this[LIST].map(([k]) => k)[Symbol.iterator](); }
    values() { return this[LIST].map(([, v]) => v)[Symbol.iterator](); }
    entries() { return this[LIST].map(([k, v]) => [k, v])[Symbol.iterator](); }
    [Symbol.iterator]() { return this.entries(); }
    toString() { return this[LIST].map(([k, v]) => `${formEncode(k)}=${formEncode(v)}`).join('&'); }
  }
  Object.defineProperty(URLSearchParams.prototype, Symbol.toStringTag, { value: 'URLSearchParams', configurable: true });

  const baseRecord = (base) => {
    if (base === undefined) return undefined;
    const b = parse(String(base));
    if (b === null) throw failure(String(base));
    return b;
  };

  class URL {
    constructor(url, base) {
      if (arguments.length === 0) throw new TypeError('The "url" argument must be specified');
      const input = toUSV(url);
      const b = base === undefined ? undefined : baseRecord(toUSV(base));
      const u = parse(input, b);
      if (u === null) throw failure(input, base === undefined ? undefined : String(base));
      define(this, RECORD, u);
      define(this, '_params', new URLSearchParams(u.query ?? ''));
      this._params[OWNER] = u;
    }
    static canParse(url, base) {
      try { new URL(url, base); return true; } catch (e) { return false; }
    }
    static parse(url, base) {
      try { return new URL(url, base); } catch (e) { return null; }
    }
    _reparams() { this._params[LIST] = parseForm(this[RECORD].query ?? ''); }
    get href() { return serialize(this[RECORD]); }
    set href(v) {
      const u = parse(toUSV(v));
      if (u === null) throw failure(String(v));
      this[RECORD] = u;
      this._params[OWNER] = u;
      this._reparams();
    }
    get origin() {
      const u = this[RECORD];
      if (u.scheme === 'blob') { try { return new URL(serializePath(u)).origin; } catch (e) { return 'null'; } }
      if (!['http', 'https', 'ws', 'wss', 'ftp'].includes(u.scheme)) return 'null';
      return `${u.scheme}://${u.host}${u.port === null ? '' : `:${u.port}`}`;
    }
    get protocol() { return `${this[RECORD].scheme}:`; }
    set protocol(v) { parse(`${toUSV(v)}:`, undefined, this[RECORD], 'scheme start'); }
    get username() { return this[RECORD].username; }
    set username(v) { const u = this[RECORD]; if (u.host === null || u.host === '' || u.scheme === 'file') return; u.username = percentEncode(toUSV(v), USERINFO); }
    get password() { return this[RECORD].password; }
    set password(v) { const u = this[RECORD]; if (u.host === null || u.host === '' || u.scheme === 'file') return; u.password = percentEncode(toUSV(v), USERINFO); }
    get host() { const u = this[RECORD]; return u.host === null ? '' : u.host + (u.port === null ? '' : `:${u.port}`); }
    set host(v) { const u = this[RECORD]; if (u.opaque !== null) return; const copy = { ...u, path: u.path }; if (parse(toUSV(v), undefined, copy, 'host')) Object.assign(u, copy); }
    get hostname() { return this[RECORD].host ?? ''; }
    set hostname(v) { const u = this[RECORD]; if (u.opaque !== null) return; const copy = { ...u, path: u.path }; if (parse(toUSV(v), undefined, copy, 'hostname')) Object.assign(u, copy); }
    get port() { const p = this[RECORD].port; return p === null ? '' : String(p); }
    set port(v) {
      const u = this[RECORD];
      if (u.host === null || u.host === '' || u.scheme === 'file') return;
      const s = toUSV(v);
      if (s === '') { u.port = null; return; }
      const copy = { ...u };
      if (parse(s, undefined, copy, 'port')) u.port = copy.port;
    }
    get pathname() { return serializePath(this[RECORD]); }
    set pathname(v) { const u = this[RECORD]; if (u.opaque !== null) return; u.path = []; parse(toUSV(v), undefined, u, 'path start'); }
    get search() { const q = this[RECORD].query; return q === null || q === '' ? '' : `?${q}`; }
    set search(v) {
      const u = this[RECORD];
      let s = toUSV(v);
      if (s === '') { u.query = null; this._params[LIST] = []; return; }
      if (s.startsWith('?')) s = s.slice(1);
      u.query = '';
      parse(s, undefined, u, 'query');
      this._reparams();
    }
    get searchParams() { return this._params; }
    get hash() { const f = this[RECORD].fragment; return f === null || f === '' ? '' : `#${f}`; }
    set hash(v) {
      const u = this[RECORD];
      let s = toUSV(v);
      if (s === '') { u.fragment = null; return; }
      if (s.startsWith('#')) s = s.slice(1);
      u.fragment = '';
      parse(s, undefined, u, 'fragment');
    }
    toString() { return this.href; }
    toJSON() { return this.href; }
  }
  Object.defineProperty(URL.prototype, Symbol.toStringTag, { value: 'URL', configurable: true });
  for (const k of ['href', 'origin', 'protocol', 'username', 'password', 'host', 'hostname', 'port', 'pathname', 'search', 'searchParams', 'hash']) {
    Object.defineProperty(URL.prototype, k, { ...Object.getOwnPropertyDescriptor(URL.prototype, k), enumerable: true });
  }
  define(G, 'URL', URL);
  define(G, 'URLSearchParams', URLSearchParams);
}

// A util.inspect for the sandbox's console: Node's default output (depth 2, 80 columns, compact
// 3) for the values logs usually hold: primitives, arrays (grouped into columns past six short
// entries), plain and class objects, Map, Set, Date, RegExp, errors, functions, typed arrays,
// boxed primitives and cycles (<ref *1> ... [Circular *1]). util.format's %s %d %i %f %j %o %O
// %c %% are supported by format().

const IDENT = /^[A-Za-z_$][\w$]*$/;
const TypedArray = Object.getPrototypeOf(Uint8Array);
const BREAK = 80;

export function quote(s) {
  const q = !s.includes("'") ? "'" : !s.includes('"') ? '"' : !s.includes('`') && !s.includes('${') ? '`' : "'";
  const escaped = s.replace(/[\\\n\t\r\b\f\v\x00-\x1f\x7f]/g, (c) => ({ '\\': '\\\\', '\n': '\\n', '\t': '\\t', '\r': '\\r', '\b': '\\b', '\f': '\\f', '\v': '\\v' })[c] ?? `\\x${c.charCodeAt(0).toString(16).padStart(2, '0').toUpperCase()}`);
  return q + (q === "'" ? escaped.replace(/'/g, "\\'") : escaped) + q;
}
const key = (k) => (typeof k === 'symbol' ? `[${k.toString()}]` : IDENT.test(k) ? k : quote(k));
const num = (n) => (Object.is(n, -0) ? '-0' : String(n));

function fnBase(fn) {
  const src = Function.prototype.toString.call(fn);
  if (/^class\b/.test(src)) return `[class ${fn.name || '(anonymous)'}]`;
  const kind = /^async\s+function\s*\*/.test(src) ? 'AsyncGeneratorFunction' : /^async\b/.test(src) ? 'AsyncFunction' : /^function\s*\*/.test(src) ? 'GeneratorFunction' : 'Function';
  return `[${kind}${fn.name ? `: ${fn.name}` : ' (anonymous)'}]`;
}

function groupColumns(output, value, indentation) {
  let total = 0, max = 0;
  const lengths = output.map((s) => s.length);
  for (const len of lengths) { total += len + 2; if (len > max) max = len; }
  const actualMax = max + 2;
  if (!(actualMax * 3 + indentation < BREAK && (total / actualMax > 5 || max <= 6))) return output;
  const bias = Math.sqrt(actualMax - total / output.length);
  const biasedMax = Math.max(actualMax - 3 - bias, 1);
  const columns = Math.min(Math.round(Math.sqrt(2.5 * biasedMax * output.length) / biasedMax), Math.floor((BREAK - indentation) / actualMax), 12, 15);
  if (columns <= 1) return output;
  const widths = [];
  for (let c = 0; c < columns; c++) {
    let w = 0;
    for (let j = c; j < output.length; j += columns) if (lengths[j] > w) w = lengths[j];
    widths.push(w + 2);
  }
  const numeric = value !== undefined && output.every((_, i) => typeof value[i] === 'number' || typeof value[i] === 'bigint');
  const rows = [];
  for (let i = 0; i < output.length; i += columns) {
    const last = Math.min(i + columns, output.length) - 1;
    let row = '';
    for (let j = i; j < last; j++) row += numeric ? `${output[j]}, `.padStart(widths[j - i]) : `${output[j]}, `.padEnd(widths[j - i]);
    row += numeric ? output[last].padStart(widths[last - i] - 2) : output[last];
    rows.push(row);
  }
  return rows;
}

/** Formats `value` as Node's util.inspect does with its defaults. */
export function inspect(value, depth = 2) {
  const seen = [];
  const circular = new Map();
  const ctx = { indent: 0, currentDepth: 0 };

  function join(base, braces, output, level, isArrayLike, raw) {
    if (output.length === 0 && !base) return `${braces[0]}${braces[1]}`;
    const entries = output.length;
    if (isArrayLike && entries > 6) output = groupColumns(output, raw, ctx.indent);
    if (ctx.currentDepth - level < 3 && entries === output.length) {
      const start = output.length + ctx.indent + braces[0].length + base.length + 10;
      let total = output.length + start;
      let fits = total + output.length <= BREAK;
      for (const s of output) { total += s.length; if (total > BREAK) { fits = false; break; } }
      if (fits && !base.includes('\n')) {
        const line = output.join(', ');
        if (!line.includes('\n')) return `${base ? `${base} ` : ''}${braces[0]} ${line} ${braces[1]}`;
      }
    }
    const pad = `\n${' '.repeat(ctx.indent)}`;
    return `${base ? `${base} ` : ''}${braces[0]}${pad}  ${output.join(`,${pad}  `)}${pad}${braces[1]}`;
  }

  function formatValue(v, level, nested) {
    if (v === null) return 'null';
    switch (typeof v) {
      case 'string': return nested ? quote(v) : v;
      case 'number': return num(v);
      case 'bigint': return `${v}n`;
      case 'boolean': return String(v);
      case 'undefined': return 'undefined';
      case 'symbol': return v.toString();
    }
    if (seen.includes(v)) {
      if (!circular.has(v)) circular.set(v, circular.size + 1);
      return `[Circular *${circular.get(v)}]`;
    }
    return formatObject(v, level);
  }

  function formatObject(v, level) {
    const proto = Object.getPrototypeOf(v);
    const ctor = proto === null ? null : proto?.constructor?.name ?? 'Object';
    const prefix = (fallback, size) => {
      const name = ctor === null ? `[${fallback}: null prototype]` : ctor;
      const tag = v[Symbol.toStringTag];
      const tagged = typeof tag === 'string' && tag !== '' && tag !== name ? `${name} [${tag}]` : name;
      return size === undefined ? tagged : `${tagged}(${size})`;
    };
    let keys = Object.keys(v).concat(Object.getOwnPropertySymbols(v).filter((s) => Object.prototype.propertyIsEnumerable.call(v, s)));
    let braces = ['{', '}'];
    let base = '';
    let items = [];
    let arrayLike = false;
    const typeName = typeof v === 'function' ? 'Function' : null;
    if (Array.isArray(v)) {
      arrayLike = true;
      keys = keys.filter((k) => typeof k === 'symbol' || !/^(0|[1-9]\d*)$/.test(k));
      braces = [ctor === 'Array' ? '[' : `${prefix('Array', v.length)} [`, ']'];
      if (v.length === 0 && keys.length === 0) return `${braces[0]}]`;
    } else if (v instanceof TypedArray) {
      arrayLike = true;
      keys = keys.filter((k) => typeof k === 'symbol' || !/^(0|[1-9]\d*)$/.test(k));
      braces = [`${prefix(ctor, v.length)} [`, ']'];
      if (v.length === 0 && keys.length === 0) return `${braces[0]}]`;
    } else if (v instanceof Map) {
      braces = [`${prefix('Map', v.size)} {`, '}'];
      if (v.size === 0 && keys.length === 0) return `${braces[0]}}`;
    } else if (v instanceof Set) {
      braces = [`${prefix('Set', v.size)} {`, '}'];
      if (v.size === 0 && keys.length === 0) return `${braces[0]}}`;
    } else if (typeName) {
      base = fnBase(v);
      keys = keys.filter((k) => k !== 'prototype');
      if (keys.length === 0) return base;
    } else if (v instanceof Date) {
      base = Number.isNaN(v.getTime()) ? 'Invalid Date' : v.toISOString();
      if (keys.length === 0) return base;
    } else if (v instanceof RegExp) {
      base = `/${v.source}/${v.flags}`;
      if (keys.length === 0) return base;
    } else if (v instanceof Error) {
      const head = v.message ? `${v.name}: ${v.message}` : String(v.name);
      base = v.stack ? `${head}\n${v.stack}`.trimEnd() : `[${head}]`;
      keys = keys.filter((k) => k !== 'stack' && k !== 'message');
      if (keys.length === 0) return base;
    } else if (v instanceof ArrayBuffer) {
      const bytes = [...new Uint8Array(v)].map((b) => b.toString(16).padStart(2, '0'));
      const shown = bytes.slice(0, 50).join(' ') + (bytes.length > 50 ? ` ... ${bytes.length - 50} more byte${bytes.length - 50 > 1 ? 's' : ''}` : '');
      items.push(`[Uint8Contents]: <${shown}>`, `byteLength: ${v.byteLength}`);
      braces = [`${prefix('ArrayBuffer')} {`, '}'];
    } else if (v instanceof Number || v instanceof String || v instanceof Boolean) {
      const inner = v.valueOf();
      base = `[${v instanceof Number ? 'Number' : v instanceof String ? 'String' : 'Boolean'}: ${typeof inner === 'string' ? quote(inner) : num(inner)}]`;
      if (v instanceof String) keys = keys.filter((k) => !/^(0|[1-9]\d*)$/.test(k) && k !== 'length');
      if (keys.length === 0) return base;
    } else if (v instanceof Promise) {
      braces = ['Promise {', '}'];
      items.push('<unknown>');
    } else if (v instanceof WeakMap || v instanceof WeakSet) {
      return `${ctor} { <items unknown> }`;
    } else if (ctor !== 'Object') {
      braces = [`${prefix('Object')} {`, '}'];
    }
    if (level > depth) {
      return `[${typeName ? 'Function' : Array.isArray(v) ? 'Array' : ctor === null ? 'Object: null prototype' : ctor}]`;
    }
    seen.push(v);
    ctx.currentDepth = level;
    const saved = ctx.indent;
    ctx.indent += 2;
    if (Array.isArray(v) || v instanceof TypedArray) {
      const shown = Math.min(v.length, 100);
      let holes = 0;
      const flushHoles = () => { if (holes > 0) { items.push(`<${holes} empty item${holes > 1 ? 's' : ''}>`); holes = 0; } };
      for (let i = 0; i < shown; i++) {
        if (!(i in v)) { holes++; continue; }
        flushHoles();
        items.push(formatValue(v[i], level + 1, true));
      }
      flushHoles();
      if (v.length > shown) items.push(`... ${v.length - shown} more item${v.length - shown > 1 ? 's' : ''}`);
    } else if (v instanceof Map) {
      for (const [k, x] of v) items.push(`${formatValue(k, level + 1, true)} => ${formatValue(x, level + 1, true)}`);
    } else if (v instanceof Set) {
      for (const x of v) items.push(formatValue(x, level + 1, true));
    }
    for (const k of keys) {
      const desc = Object.getOwnPropertyDescriptor(v, k);
      const shown = desc.get ? (desc.set ? '[Getter/Setter]' : '[Getter]') : desc.set ? '[Setter]' : formatValue(desc.value, level + 1, true);
      items.push(`${key(k)}: ${shown}`);
    }
    ctx.indent = saved;
    seen.pop();
    let out = join(base, braces, items, level, arrayLike, arrayLike ? v : undefined);
    if (circular.has(v)) out = `<ref *${circular.get(v)}> ${out}`;
    return out;
  }
  return formatValue(value, 0, false);
}

// An object whose toString is its own or its class's (not Object's or Error's) prints with it under %s.
const userToString = (a) => {
  for (let o = a; o !== null && o !== Object.prototype && o !== Error.prototype; o = Object.getPrototypeOf(o)) {
    if (Object.prototype.hasOwnProperty.call(o, 'toString')) return !(a instanceof Date);
  }
  return false;
};

/** util.format: a first string argument's %-specifiers take the next arguments; the rest are inspected. */
export function format(...args) {
  let out = '';
  let next = 0;
  if (typeof args[0] === 'string') {
    const fmt = args[0];
    next = 1;
    let last = 0;
    for (let i = 0; i < fmt.length - 1; i++) {
      if (fmt[i] !== '%') continue;
      const c = fmt[i + 1];
      if (c === '%') { out += fmt.slice(last, i) + '%'; last = i + 2; i++; continue; }
      if (!'sdifjoOc'.includes(c) || next >= args.length) continue;
      const a = args[next++];
      let s;
      switch (c) {
        case 's': s = typeof a === 'bigint' ? `${a}n` : typeof a === 'number' ? num(a) : typeof a === 'symbol' ? a.toString() : typeof a === 'object' && a !== null && !userToString(a) ? inspect(a, 0) : String(a); break;
        case 'd': s = typeof a === 'bigint' ? `${a}n` : typeof a === 'symbol' ? 'NaN' : num(Number(a)); break;
        case 'i': s = typeof a === 'bigint' ? `${a}n` : typeof a === 'symbol' ? 'NaN' : num(parseInt(a)); break;
        case 'f': s = typeof a === 'symbol' ? 'NaN' : num(parseFloat(a)); break;
        case 'j': try { s = JSON.stringify(a); } catch (e) { s = '[Circular]'; } break;
        case 'o': case 'O': s = inspect(a, c === 'o' ? 4 : 2); if (typeof a === 'string') s = quote(a); break;
        default: s = ''; // %c: CSS, ignored
      }
      out += fmt.slice(last, i) + s;
      last = i + 2;
      i++;
    }
    out += fmt.slice(last);
  }
  for (let i = next; i < args.length; i++) {
    const a = args[i];
    out += (i > 0 ? ' ' : '') + (typeof a === 'string' ? a : inspect(a));
  }
  return out;
}

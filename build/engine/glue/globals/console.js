// console: every method Node has, formatted as Node formats them (util.format, util.inspect),
// each line sent to the host's log at a level: debug and trace at debug; log, info, dir, table,
// count, time* and group labels at info; warn and assert at warn; error at error. group indents
// what follows by two spaces. time and timeEnd read the clock (virtual unless granted).
import { define } from './util.js';
import { format, inspect, quote } from './inspect.js';

export function installConsole(G, native) {
  let indent = '';
  const emit = (level, text) => native.log(level, indent ? text.split('\n').map((l) => indent + l).join('\n') : text);
  const at = (level) => (...args) => emit(level, format(...args));
  const counts = new Map();
  const timers = new Map();
  const elapsed = (label) => {
    const ms = G.performance.now() - timers.get(label);
    return ms >= 1000 ? `${(ms / 1000).toFixed(3)}s` : `${+ms.toFixed(3)}ms`;
  };
  const missing = (method, label) => emit(2, `Warning: No such label '${label}' for console.${method}()`);
  const console = {
    log: at(1), info: at(1), debug: at(0), warn: at(2), error: at(3),
    trace(...args) {
      const stack = new Error().stack ?? '';
      emit(0, `Trace${args.length ? `: ${format(...args)}` : ''}\n${stack.split('\n').slice(1).join('\n')}`.trimEnd());
    },
    dir(value) { emit(1, inspect(value)); },
    dirxml(...args) { emit(1, format(...args)); },
    assert(condition, ...args) {
      if (condition) return;
      emit(2, args.length ? `Assertion failed: ${format(...args)}` : 'Assertion failed');
    },
    count(label = 'default') {
      const n = (counts.get(`${label}`) ?? 0) + 1;
      counts.set(`${label}`, n);
      emit(1, `${label}: ${n}`);
    },
    countReset(label = 'default') {
      if (!counts.has(`${label}`)) return emit(2, `Count for '${label}' does not exist`);
      counts.set(`${label}`, 0);
    },
    group(...args) { if (args.length) emit(1, format(...args)); indent += '  '; },
    groupCollapsed(...args) { console.group(...args); },
    groupEnd() { indent = indent.slice(0, -2); },
    time(label = 'default') {
      if (timers.has(`${label}`)) return emit(2, `Warning: Label '${label}' already exists for console.time()`);
      timers.set(`${label}`, G.performance.now());
    },
    timeLog(label = 'default', ...data) {
      if (!timers.has(`${label}`)) return missing('timeLog', label);
      emit(1, `${label}: ${elapsed(`${label}`)}${data.length ? ` ${format(...data)}` : ''}`);
    },
    timeEnd(label = 'default') {
      if (!timers.has(`${label}`)) return missing('timeEnd', label);
      emit(1, `${label}: ${elapsed(`${label}`)}`);
      timers.delete(`${label}`);
    },
    table(data) {
      if (data === null || typeof data !== 'object') return console.log(data);
      emit(1, table(data));
    },
  };
  define(G, 'console', console);
}

// Node's console.table layout: a box of the index column and one column per key met.
function table(data) {
  const rows = [];
  const columns = [];
  let values = false;
  const entries = data instanceof Map ? [...data.entries()] : Object.entries(data);
  for (const [k, v] of entries) {
    const row = { key: String(k), cells: new Map() };
    if (v !== null && typeof v === 'object') {
      for (const [c, x] of Object.entries(v)) {
        if (!columns.includes(c)) columns.push(c);
        row.cells.set(c, x);
      }
    } else {
      values = true;
      row.value = v;
    }
    rows.push(row);
  }
  const cell = (v) => (v === undefined ? '' : typeof v === 'string' ? quote(v) : inspect(v, 0));
  const head = ['(index)', ...columns, ...(values ? ['Values'] : [])];
  const body = rows.map((r) => [r.key, ...columns.map((c) => (r.cells.has(c) ? cell(r.cells.get(c)) : '')), ...(values ? ['value' in r ? cell(r.value) : ''] : [])]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)) + 2);
  const line = (l, m, r) => l + widths.map((w) => '\u2500'.repeat(w)).join(m) + r;
  const center = (s, w) => { const left = Math.floor((w - s.length) / 2); return ' '.repeat(left) + s + ' '.repeat(w - s.length - left); };
  const row = (cells) => '\u2502' + cells.map((c, i) => center(c, widths[i])).join('\u2502') + '\u2502';
  return [line('\u250c', '\u252c', '\u2510'), row(head), line('\u251c', '\u253c', '\u2524'), ...body.map(row), line('\u2514', '\u2534', '\u2518')].join('\n');
}

/**
 * Reads the header of an Elm module without compiling it: `[port|effect] module Name exposing
 * (…)` and the `import` lines that follow, with their offsets in the text. The frontend needs the
 * module's name to place it in its package, its exposing list for value visibility, and the
 * imports to point at the line an error is about. Anything that does not read as a header gives
 * undefined: the compiler then reports the syntax error itself.
 */

/** An exposing list: `(..)`, or the names it lists by kind. */
export interface ExposingList {
  all: boolean;
  /** Exposed values (functions and constants), e.g. `total`. */
  values: string[];
  /** Exposed types and aliases; `open` for `Type(..)` (constructors exposed too). */
  types: { name: string; open: boolean }[];
  /** Exposed infix operators, e.g. `+++` for `(+++)`. */
  operators: string[];
}

/** One `import` declaration. */
export interface ImportDeclaration {
  /** The imported module, e.g. `Acme.Shop.Money`. */
  module: string;
  /** UTF-16 offsets of the module name in the text. */
  start: number;
  end: number;
  /** `as` alias, when given. */
  alias?: string;
  exposing?: ExposingList;
}

/** A module header. */
export interface ModuleHeader {
  kind: 'module' | 'port' | 'effect';
  /** The module's name, e.g. `Acme.Shop.Billing`. */
  name: string;
  /** UTF-16 offsets of the name in the text. */
  nameStart: number;
  nameEnd: number;
  exposing: ExposingList;
  imports: ImportDeclaration[];
}

const IDENT = /[A-Za-z0-9_]/;

/** A cursor over the text that skips white space and comments before every token. */
class Cursor {
  i = 0;
  constructor(readonly text: string) {}

  /** Skips white space, `--` comments and nested `{- -}` comments; false for an unclosed comment. */
  skip(): boolean {
    const t = this.text;
    for (;;) {
      const c = t[this.i];
      if (c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f' || c === '\uFEFF') this.i++;
      else if (t.startsWith('--', this.i)) {
        const eol = t.indexOf('\n', this.i);
        this.i = eol < 0 ? t.length : eol + 1;
      } else if (t.startsWith('{-', this.i)) {
        let depth = 0;
        do {
          if (t.startsWith('{-', this.i)) (depth++, (this.i += 2));
          else if (t.startsWith('-}', this.i)) (depth--, (this.i += 2));
          else if (this.i >= t.length) return false;
          else this.i++;
        } while (depth > 0);
      } else return true;
    }
  }

  /** Consumes `word` as a whole keyword. */
  keyword(word: string): boolean {
    if (!this.skip() || !this.text.startsWith(word, this.i) || IDENT.test(this.text[this.i + word.length] ?? '')) return false;
    this.i += word.length;
    return true;
  }

  /** Consumes a punctuation token. */
  symbol(s: string): boolean {
    if (!this.skip() || !this.text.startsWith(s, this.i)) return false;
    this.i += s.length;
    return true;
  }

  /** Consumes `Upper(.Upper)*`, returning it and its start. */
  moduleName(): { name: string; start: number } | undefined {
    if (!this.skip() || !/[A-Z]/.test(this.text[this.i] ?? '')) return undefined;
    const start = this.i;
    for (;;) {
      this.i++;
      while (IDENT.test(this.text[this.i] ?? '')) this.i++;
      if (this.text[this.i] === '.' && /[A-Z]/.test(this.text[this.i + 1] ?? '')) this.i++;
      else break;
    }
    return { name: this.text.slice(start, this.i), start };
  }

  /** Consumes one identifier (upper or lower case). */
  identifier(): string | undefined {
    if (!this.skip() || !/[A-Za-z_]/.test(this.text[this.i] ?? '')) return undefined;
    const start = this.i;
    while (IDENT.test(this.text[this.i] ?? '')) this.i++;
    return this.text.slice(start, this.i);
  }
}

function exposingList(c: Cursor): ExposingList | undefined {
  const list: ExposingList = { all: false, values: [], types: [], operators: [] };
  if (!c.symbol('(')) return undefined;
  if (c.symbol('..')) return c.symbol(')') ? { ...list, all: true } : undefined;
  do {
    if (c.symbol('(')) {
      const start = c.i;
      const close = c.text.indexOf(')', start);
      if (close < 0) return undefined;
      list.operators.push(c.text.slice(start, close).trim());
      c.i = close + 1;
      continue;
    }
    const name = c.identifier();
    if (name === undefined) return undefined;
    if (/^[A-Z]/.test(name)) {
      const open = c.symbol('(');
      if (open && !(c.symbol('..') && c.symbol(')'))) return undefined;
      list.types.push({ name, open });
    } else list.values.push(name);
  } while (c.symbol(','));
  return c.symbol(')') ? list : undefined;
}

/**
 * The header of `text`, or undefined when it does not start with a module declaration.
 *
 * @example
 * readModuleHeader('module A.B exposing (x)\nimport C as D\n')?.imports[0].alias; // 'D'
 */
export function readModuleHeader(text: string): ModuleHeader | undefined {
  const c = new Cursor(text);
  let kind: ModuleHeader['kind'] = 'module';
  if (c.keyword('port')) kind = 'port';
  else if (c.keyword('effect')) kind = 'effect';
  if (!c.keyword('module')) return undefined;
  const name = c.moduleName();
  if (!name) return undefined;
  const nameEnd = c.i;
  if (kind === 'effect' && c.keyword('where')) {
    const close = text.indexOf('}', c.i);
    if (close < 0) return undefined;
    c.i = close + 1;
  }
  if (!c.keyword('exposing')) return undefined;
  const exposing = exposingList(c);
  if (!exposing) return undefined;
  const imports: ImportDeclaration[] = [];
  while (c.keyword('import')) {
    const imported = c.moduleName();
    if (!imported) break;
    const declaration: ImportDeclaration = { module: imported.name, start: imported.start, end: c.i };
    if (c.keyword('as')) {
      const alias = c.moduleName();
      if (!alias) break;
      declaration.alias = alias.name;
    }
    if (c.keyword('exposing')) {
      const list = exposingList(c);
      if (!list) break;
      declaration.exposing = list;
    }
    imports.push(declaration);
  }
  return { kind, name: name.name, nameStart: name.start, nameEnd, exposing, imports };
}

/**
 * The parser-based frontend workload (issue 32): a small type language compiled to Morphir IR v3
 * with chevrotain (lexer, CST parser, visitor), as an author of a DSL frontend writes it.
 * {@link dslFromIr} prints a library in the language, so the bench's inputs come from the showcase
 * IR and the heavy generator; {@link compileDsl} reads it back to the same types and signatures.
 *
 *   module acme.showcase:common {
 *     /// A labelled value.
 *     type labelled<a> = { label: String, value: 'a }
 *     enum currency = eur | gbp | usd
 *     union payment = card(arg-1: String) | cash
 *     fn make-money(amount: Decimal): acme.showcase:common:money
 *   }
 */
import { CstParser, createToken, Lexer, type CstNode, type IToken } from 'chevrotain';

type Json = unknown;

const WhiteSpace = createToken({ name: 'WhiteSpace', pattern: /[ \t\r\n]+/, group: Lexer.SKIPPED });
const Doc = createToken({ name: 'Doc', pattern: /\/\/\/[^\n]*/ });
const Name = createToken({ name: 'Name', pattern: /[a-z][a-z0-9]*(?:-[a-z0-9]+)*/ });
const Builtin = createToken({ name: 'Builtin', pattern: /[A-Z][A-Za-z]*/ });
const Var = createToken({ name: 'Var', pattern: /'[a-z][a-z0-9]*(?:-[a-z0-9]+)*/ });
const kw = (word: string): ReturnType<typeof createToken> => createToken({ name: `Kw${word}`, pattern: new RegExp(word), longer_alt: Name });
const Module = kw('module');
const Type = kw('type');
const Enum = kw('enum');
const Union = kw('union');
const Fn = kw('fn');
const punct = (name: string, pattern: string): ReturnType<typeof createToken> => createToken({ name, pattern });
const [LCurly, RCurly, LAngle, RAngle, LParen, RParen, Comma, Colon, Equals, Bar, Dot] = [
  punct('LCurly', '{'), punct('RCurly', '}'), punct('LAngle', '<'), punct('RAngle', '>'), punct('LParen', '('), punct('RParen', ')'),
  punct('Comma', ','), punct('Colon', ':'), punct('Equals', '='), punct('Bar', '|'), punct('Dot', '.'),
];
const TOKENS = [WhiteSpace, Doc, Module, Type, Enum, Union, Fn, Name, Builtin, Var, LCurly, RCurly, LAngle, RAngle, LParen, RParen, Comma, Colon, Equals, Bar, Dot];

class TypeDslParser extends CstParser {
  constructor() {
    super(TOKENS, { recoveryEnabled: false });
    this.performSelfAnalysis();
  }
  file = this.RULE('file', () => this.MANY(() => this.SUBRULE(this.module)));
  module = this.RULE('module', () => {
    this.CONSUME(Module);
    this.SUBRULE(this.path);
    this.CONSUME(Colon);
    this.SUBRULE2(this.path);
    this.CONSUME(LCurly);
    this.MANY(() => this.SUBRULE(this.definition));
    this.CONSUME(RCurly);
  });
  path = this.RULE('path', () => this.AT_LEAST_ONE_SEP({ SEP: Dot, DEF: () => this.CONSUME(Name) }));
  definition = this.RULE('definition', () => {
    this.MANY(() => this.CONSUME(Doc));
    this.OR([
      { ALT: () => this.SUBRULE(this.alias) },
      { ALT: () => this.SUBRULE(this.enumDef) },
      { ALT: () => this.SUBRULE(this.unionDef) },
      { ALT: () => this.SUBRULE(this.fnDef) },
    ]);
  });
  params = this.RULE('params', () => {
    this.CONSUME(LAngle);
    this.AT_LEAST_ONE_SEP({ SEP: Comma, DEF: () => this.CONSUME(Var) });
    this.CONSUME(RAngle);
  });
  alias = this.RULE('alias', () => {
    this.CONSUME(Type);
    this.CONSUME(Name);
    this.OPTION(() => this.SUBRULE(this.params));
    this.CONSUME(Equals);
    this.SUBRULE(this.typeExpr);
  });
  enumDef = this.RULE('enumDef', () => {
    this.CONSUME(Enum);
    this.CONSUME(Name);
    this.CONSUME(Equals);
    this.AT_LEAST_ONE_SEP({ SEP: Bar, DEF: () => this.CONSUME2(Name) });
  });
  unionDef = this.RULE('unionDef', () => {
    this.CONSUME(Union);
    this.CONSUME(Name);
    this.OPTION(() => this.SUBRULE(this.params));
    this.CONSUME(Equals);
    this.AT_LEAST_ONE_SEP({ SEP: Bar, DEF: () => this.SUBRULE(this.constructorDef) });
  });
  constructorDef = this.RULE('constructorDef', () => {
    this.CONSUME(Name);
    this.OPTION(() => this.SUBRULE(this.fieldList));
  });
  fnDef = this.RULE('fnDef', () => {
    this.CONSUME(Fn);
    this.CONSUME(Name);
    this.SUBRULE(this.fieldList);
    this.CONSUME(Colon);
    this.SUBRULE(this.typeExpr);
  });
  fieldList = this.RULE('fieldList', () => {
    this.CONSUME(LParen);
    this.MANY_SEP({ SEP: Comma, DEF: () => this.SUBRULE(this.field) });
    this.CONSUME(RParen);
  });
  field = this.RULE('field', () => {
    this.CONSUME(Name);
    this.CONSUME(Colon);
    this.SUBRULE(this.typeExpr);
  });
  typeExpr = this.RULE('typeExpr', () => {
    this.OR([
      { ALT: () => this.SUBRULE(this.builtin) },
      { ALT: () => this.CONSUME(Var) },
      { ALT: () => this.SUBRULE(this.reference) },
      { ALT: () => this.SUBRULE(this.record) },
      { ALT: () => this.SUBRULE(this.tuple) },
    ]);
  });
  typeArgs = this.RULE('typeArgs', () => {
    this.CONSUME(LAngle);
    this.AT_LEAST_ONE_SEP({ SEP: Comma, DEF: () => this.SUBRULE(this.typeExpr) });
    this.CONSUME(RAngle);
  });
  builtin = this.RULE('builtin', () => {
    this.CONSUME(Builtin);
    this.OPTION(() => this.SUBRULE(this.typeArgs));
  });
  reference = this.RULE('reference', () => {
    this.SUBRULE(this.path);
    this.CONSUME(Colon);
    this.SUBRULE2(this.path);
    this.CONSUME2(Colon);
    this.CONSUME(Name);
    this.OPTION(() => this.SUBRULE(this.typeArgs));
  });
  record = this.RULE('record', () => {
    this.CONSUME(LCurly);
    this.MANY_SEP({ SEP: Comma, DEF: () => this.SUBRULE(this.field) });
    this.CONSUME(RCurly);
  });
  tuple = this.RULE('tuple', () => {
    this.CONSUME(LParen);
    this.MANY_SEP({ SEP: Comma, DEF: () => this.SUBRULE(this.typeExpr) });
    this.CONSUME(RParen);
  });
}

/** SDK types by their DSL name: [module, local]. */
const SDK: Record<string, [string[], string[]]> = {
  String: [['string'], ['string']], Char: [['char'], ['char']], Int: [['basics'], ['int']], Float: [['basics'], ['float']], Bool: [['basics'], ['bool']],
  Decimal: [['decimal'], ['decimal']], LocalDate: [['local', 'date'], ['local', 'date']], LocalTime: [['local', 'time'], ['local', 'time']],
  List: [['list'], ['list']], Set: [['set'], ['set']], Dict: [['dict'], ['dict']], Maybe: [['maybe'], ['maybe']], Result: [['result'], ['result']],
};
const SDK_NAME = new Map(Object.entries(SDK).map(([n, [m, l]]) => [`${m.join('-')}:${l.join('-')}`, n]));
const SDK_PACKAGE = [['morphir'], ['s', 'd', 'k']];

let parser: TypeDslParser | undefined;
const lexer = new Lexer(TOKENS, { positionTracking: 'full', ensureOptimizations: false });

/** A DSL compile error with its position (one-based, as chevrotain reports). */
export interface DslError {
  message: string;
  line: number;
  column: number;
}

const words = (name: string): string[] => name.split('-');
const children = (node: CstNode, key: string): CstNode[] => (node.children[key] as CstNode[] | undefined) ?? [];
const tokens = (node: CstNode, key: string): IToken[] => (node.children[key] as IToken[] | undefined) ?? [];
const pathOf = (node: CstNode): string[][] => tokens(node, 'Name').map((t) => words(t.image));

function typeOf(node: CstNode): Json {
  const [b] = children(node, 'builtin');
  if (b) {
    const name = tokens(b, 'Builtin')[0]!.image;
    const sdk = SDK[name];
    if (!sdk) throw new TypeError(`unknown built-in type ${name}`);
    return ['Reference', {}, [SDK_PACKAGE, [sdk[0]], sdk[1]], argsOf(b)];
  }
  const [v] = tokens(node, 'Var');
  if (v) return ['Variable', {}, words(v.image.slice(1))];
  const [r] = children(node, 'reference');
  if (r) {
    const [pkg, module] = children(r, 'path');
    return ['Reference', {}, [pathOf(pkg!), pathOf(module!), words(tokens(r, 'Name')[0]!.image)], argsOf(r)];
  }
  const [rec] = children(node, 'record');
  if (rec) return ['Record', {}, children(rec, 'field').map(fieldOf)];
  const [tuple] = children(node, 'tuple');
  return ['Tuple', {}, children(tuple!, 'typeExpr').map(typeOf)];
}
const argsOf = (node: CstNode): Json[] => children(node, 'typeArgs').flatMap((a) => children(a, 'typeExpr').map(typeOf));
const fieldOf = (f: CstNode): { name: string[]; tpe: Json } => ({ name: words(tokens(f, 'Name')[0]!.image), tpe: typeOf(children(f, 'typeExpr')[0]!) });
const paramsOf = (node: CstNode): string[][] => children(node, 'params').flatMap((p) => tokens(p, 'Var').map((t) => words(t.image.slice(1))));
const documented = (doc: string, value: Json): Json => ({ access: 'Public', value: { doc, value } });

/** Compiles DSL text to a Morphir IR v3 library; the errors instead when it does not lex or parse. */
export function compileDsl(text: string): { ir: Record<string, unknown> | null; errors: DslError[] } {
  parser ??= new TypeDslParser();
  const lexed = lexer.tokenize(text);
  if (lexed.errors.length > 0) return { ir: null, errors: lexed.errors.map((e) => ({ message: e.message, line: e.line ?? 0, column: e.column ?? 0 })) };
  parser.input = lexed.tokens;
  const cst = parser.file();
  if (parser.errors.length > 0) return { ir: null, errors: parser.errors.map((e) => ({ message: e.message, line: e.token.startLine ?? 0, column: e.token.startColumn ?? 0 })) };
  let packageName: string[][] = [];
  const modules = children(cst, 'module').map((m) => {
    const [pkg, mod] = children(m, 'path');
    packageName = pathOf(pkg!);
    const types: Json[] = [];
    const values: Json[] = [];
    for (const d of children(m, 'definition')) {
      const doc = tokens(d, 'Doc').map((t) => `${t.image.slice(3)}\n`).join('');
      const [alias] = children(d, 'alias');
      const [en] = children(d, 'enumDef');
      const [un] = children(d, 'unionDef');
      const [fn] = children(d, 'fnDef');
      if (alias) {
        types.push([words(tokens(alias, 'Name')[0]!.image), documented(doc, ['TypeAliasDefinition', paramsOf(alias), typeOf(children(alias, 'typeExpr')[0]!)])]);
      } else if (en) {
        const [name, ...ctors] = tokens(en, 'Name');
        types.push([words(name!.image), documented(doc, ['CustomTypeDefinition', [], { access: 'Public', value: ctors.map((c) => [words(c.image), []]) }])]);
      } else if (un) {
        const ctors = children(un, 'constructorDef').map((c) => [words(tokens(c, 'Name')[0]!.image), children(c, 'fieldList').flatMap((l) => children(l, 'field').map(fieldOf)).map((f) => [f.name, f.tpe])]);
        types.push([words(tokens(un, 'Name')[0]!.image), documented(doc, ['CustomTypeDefinition', paramsOf(un), { access: 'Public', value: ctors }])]);
      } else if (fn) {
        const inputs = children(fn, 'fieldList').flatMap((l) => children(l, 'field').map(fieldOf)).map((f) => [f.name, ['Unit', {}], f.tpe]);
        values.push([words(tokens(fn, 'Name')[0]!.image), documented(doc, { inputTypes: inputs, outputType: typeOf(children(fn, 'typeExpr')[0]!), body: ['Unit', {}] })]);
      }
    }
    return [pathOf(mod!), { access: 'Public', value: { types, values, doc: '' } }];
  });
  return { ir: { formatVersion: 3, distribution: ['Library', packageName, [], { modules }] }, errors: [] };
}

const name = (w: string[]): string => w.join('-');
const path = (p: string[][]): string => p.map(name).join('.');

function printType(t: Json): string {
  const [tag, , a, b] = t as [string, unknown, Json, Json];
  if (tag === 'Variable') return `'${name(a as string[])}`;
  if (tag === 'Tuple') return `(${(a as Json[]).map(printType).join(', ')})`;
  if (tag === 'Record') return `{ ${(a as { name: string[]; tpe: Json }[]).map((f) => `${name(f.name)}: ${printType(f.tpe)}`).join(', ')} }`;
  if (tag !== 'Reference') throw new TypeError(`the type DSL has no ${tag}`);
  const [pkg, module, local] = a as [string[][], string[][], string[]];
  const args = (b as Json[]).length > 0 ? `<${(b as Json[]).map(printType).join(', ')}>` : '';
  const sdk = path(pkg) === 'morphir.s-d-k' ? SDK_NAME.get(`${module.map(name).join('.')}:${name(local)}`) : undefined;
  return `${sdk ?? `${path(pkg)}:${path(module)}:${name(local)}`}${args}`;
}

/** Prints a v3 library in the type DSL (types and value signatures; bodies are not part of it). */
export function dslFromIr(ir: unknown): string {
  const dist = (ir as { distribution: [string, string[][], unknown, { modules: [string[][], { value: { types: [string[], { value: { doc?: string; value: Json } }][]; values: [string[], { value: { doc?: string; value: Json } }][] } }][] }] }).distribution;
  const out: string[] = [];
  for (const [module, def] of dist[3].modules) {
    out.push(`module ${path(dist[1])}:${path(module)} {`);
    const docs = (doc: string | undefined): void => {
      for (const line of (doc ?? '').split('\n').slice(0, -1)) out.push(`  ///${line}`);
    };
    for (const [n, t] of def.value.types) {
      docs(t.value.doc);
      const [tag, params, body] = t.value.value as [string, string[][], Json];
      const ps = params.length > 0 ? `<${params.map((p) => `'${name(p)}`).join(', ')}>` : '';
      if (tag === 'TypeAliasDefinition') out.push(`  type ${name(n)}${ps} = ${printType(body)}`);
      else {
        const ctors = (body as { value: [string[], [string[], Json][]][] }).value;
        if (params.length === 0 && ctors.every(([, args]) => args.length === 0)) out.push(`  enum ${name(n)} = ${ctors.map(([c]) => name(c)).join(' | ')}`);
        else out.push(`  union ${name(n)}${ps} = ${ctors.map(([c, args]) => (args.length ? `${name(c)}(${args.map(([an, at]) => `${name(an)}: ${printType(at)}`).join(', ')})` : name(c))).join(' | ')}`);
      }
    }
    for (const [n, v] of def.value.values) {
      docs(v.value.doc);
      const spec = v.value.value as { inputTypes: [string[], unknown, Json][]; outputType: Json };
      out.push(`  fn ${name(n)}(${spec.inputTypes.map(([an, , at]) => `${name(an)}: ${printType(at)}`).join(', ')}): ${printType(spec.outputType)}`);
    }
    out.push('}');
  }
  return `${out.join('\n')}\n`;
}

/**
 * A seeded generator of random but valid Morphir IR v3 models for property tests (test-only, no
 * dependency): records, payload and enum custom types, aliases, generic records and custom types
 * with their instantiations, Maybe/List/Set/Dict/Result, tuples, anonymous records, SDK types
 * (Char, LocalDate, LocalTime, Decimal, …), a few constructs Avro cannot express (functions,
 * non-string Dict keys, extensible records) so warn-and-skip is exercised, private types,
 * dependency packages, value signatures, and names that are Avro IDL keywords or initialisms.
 * Every reference resolves with the right arity and every type variable is bound.
 */
import { dependency, library, t, type ModuleSpec, type TypeSpec, type ValueSpec } from './test-support.ts';

type Json = unknown;

/** A small, fast, seeded PRNG (mulberry32); the same seed gives the same sequence everywhere. */
export function createRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let x = state;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

// Words include single letters (initialisms), digits, and Avro IDL keywords (escaped in IDL).
const WORDS = ['order', 'line', 'item', 'customer', 'id', 'code', 'amount', 'status', 'address', 'city', 'note', 'price', 'kind', 'a', 'b', 'x', 'v2', 'record', 'error', 'date', 'union', 'map', 'value'];
const SDK_LEAVES = ['morphir/SDK:basics#bool', 'morphir/SDK:basics#int', 'morphir/SDK:basics#float', 'morphir/SDK:string#string', 'morphir/SDK:char#char', 'morphir/SDK:local-date#local-date', 'morphir/SDK:local-time#local-time', 'morphir/SDK:decimal#decimal', 'morphir/SDK:uuid#uuid', 'morphir/SDK:instant#instant'];

interface Declared {
  source: string;
  params: number;
}

class Generator {
  private readonly used = new Set<string>();
  readonly declared: Declared[] = [];

  constructor(private readonly random: () => number) {}

  int(max: number): number {
    return Math.floor(this.random() * max);
  }

  chance(p: number): boolean {
    return this.random() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }

  /** A canonical name of 1–3 words, unique within `scope`. */
  name(scope: string): string {
    for (;;) {
      const words = Array.from({ length: 1 + this.int(3) }, () => this.pick(WORDS));
      // Canonical form: a run of single letters is one upper-case initialism.
      const canonical = words.join('-');
      const key = `${scope}|${canonical.replace(/-/g, '')}`;
      if (!this.used.has(key) && !/^\d/.test(canonical)) {
        this.used.add(key);
        return canonical;
      }
      this.used.add(`${key}|${this.int(1e9)}`);
    }
  }

  /** A type expression of bounded depth using `vars` (bound type variables) and declared types. */
  type(depth: number, vars: readonly string[], unsupported: boolean): Json {
    const leaf = depth <= 0;
    const roll = this.random();
    if (vars.length > 0 && roll < 0.12) return t.var(this.pick(vars));
    if (leaf || roll < 0.4) {
      if (this.declared.length > 0 && this.chance(0.35)) return this.reference(Math.max(depth - 1, 0), vars, unsupported);
      return this.chance(0.04) ? t.unit() : t.ref(this.pick(SDK_LEAVES));
    }
    const next = depth - 1;
    // Constructs Avro cannot express are rare, so most declarations survive warn-and-skip.
    switch (unsupported && this.chance(0.03) ? 9 + this.int(2) : this.int(9)) {
      case 0:
        return t.ref('morphir/SDK:maybe#maybe', this.type(next, vars, unsupported));
      case 1:
        return t.ref('morphir/SDK:list#list', this.type(next, vars, unsupported));
      case 2:
        return t.ref('morphir/SDK:set#set', this.type(next, vars, unsupported));
      case 3:
        return t.ref('morphir/SDK:dict#dict', t.string(), this.type(next, vars, unsupported));
      case 4:
        return t.ref('morphir/SDK:result#result', this.type(next, vars, unsupported), this.type(next, vars, unsupported));
      case 5:
        return t.tuple(...Array.from({ length: 2 + this.int(2) }, () => this.type(next, vars, unsupported)));
      case 6:
        return this.record(next, vars, unsupported);
      case 7:
      case 8:
        return this.declared.length > 0 ? this.reference(next, vars, unsupported) : t.string();
      case 9:
        return t.fn(this.type(next, vars, unsupported), this.type(next, vars, unsupported));
      default:
        return this.chance(0.5) ? t.ref('morphir/SDK:dict#dict', t.int(), t.string()) : t.extensible('r', [['f', t.int()]]);
    }
  }

  private reference(depth: number, vars: readonly string[], unsupported: boolean): Json {
    const target = this.pick(this.declared);
    return t.ref(target.source, ...Array.from({ length: target.params }, () => this.type(Math.min(depth, 1), vars, unsupported)));
  }

  record(depth: number, vars: readonly string[], unsupported: boolean): Json {
    const scope = `record${this.int(1e9)}`;
    const fields: [string, Json][] = Array.from({ length: 1 + this.int(4) }, () => [this.name(scope), this.type(depth, vars, unsupported)]);
    return t.record(fields);
  }
}

/** Options of one random model. */
export interface RandomModelOptions {
  /** Include constructs Avro cannot express (functions, Int-keyed Dicts, extensible records). */
  unsupported?: boolean;
}

/**
 * A random Morphir IR v3 Library distribution from `seed`; equal seeds give equal documents.
 * @example const ir = randomModel(42); generateAvro(ir, { unsupported: 'warn-and-skip' });
 */
export function randomModel(seed: number, options: RandomModelOptions = {}): Json {
  const g = new Generator(createRandom(seed));
  const unsupported = options.unsupported ?? true;
  const packageName = `${g.pick(['acme', 'shop', 'bank'])}/${g.pick(['orders', 'billing', 'core'])}`;
  const dependencies: Json[] = [];
  if (g.chance(0.25)) {
    const depTypes: TypeSpec[] = [];
    for (let i = 0; i < 1 + g.int(3); i++) {
      const name = g.name('dep');
      depTypes.push(g.chance(0.5) ? { name, alias: g.record(1, [], false) } : { name, custom: [[`${name}-one`, []], [`${name}-two`, [['arg1', t.int()]]]] });
      g.declared.push({ source: `shared/base:ids#${name}`, params: 0 });
    }
    dependencies.push(dependency('shared/base', [{ path: 'ids', types: depTypes }]));
  }
  const modules: ModuleSpec[] = [];
  const moduleCount = 1 + g.int(2);
  for (let m = 0; m < moduleCount; m++) {
    const path = m === 0 ? 'domain' : `domain/${g.pick(['api', 'model'])}`;
    const types: TypeSpec[] = [];
    for (let i = 0; i < 1 + g.int(6); i++) {
      const name = g.name(`types:${path}`);
      const source = `${packageName}:${path}#${name}`;
      const params = g.chance(0.2) ? ['a', 'b'].slice(0, 1 + g.int(2)) : [];
      const access = g.chance(0.1) ? 'Private' : 'Public';
      const kind = g.int(4);
      let spec: TypeSpec;
      if (kind === 0) spec = { name, params, access, alias: g.record(2, params, unsupported) };
      else if (kind === 1 && params.length === 0) spec = { name, access, alias: g.type(2, [], unsupported) };
      else {
        const ctors: [string, [string, Json][]][] = [];
        const enumOnly = g.chance(0.3) && params.length === 0;
        for (let c = 0; c < 1 + g.int(4); c++) {
          const args: [string, Json][] = enumOnly ? [] : Array.from({ length: g.int(3) }, (_, k) => [`arg${k + 1}`, g.type(2, params, unsupported)]);
          ctors.push([g.name(`ctors:${path}`), args]);
        }
        spec = { name, params, access, custom: ctors, constructorsAccess: g.chance(0.1) ? 'Private' : 'Public', ...(g.chance(0.3) ? { doc: `Doc of ${name}.` } : {}) };
      }
      types.push(spec);
      // Later declarations may refer to this one (and a custom type to itself through a collection).
      if (access === 'Public') g.declared.push({ source, params: params.length });
    }
    // Concrete roots for generic declarations: `type alias X = Pair Int` and friends.
    for (const generic of g.declared.filter((d) => d.params > 0 && d.source.startsWith(`${packageName}:${path}#`))) {
      if (!g.chance(0.7)) continue;
      types.push({ name: g.name(`types:${path}`), alias: t.ref(generic.source, ...Array.from({ length: generic.params }, () => g.type(1, [], unsupported))) });
    }
    const values: ValueSpec[] = [];
    for (let i = 0; i < g.int(3); i++) {
      const inputs: [string, Json][] = Array.from({ length: g.int(3) }, () => [g.name(`inputs:${i}`), g.type(2, [], unsupported)]);
      values.push({ name: g.name(`values:${path}`), inputs, output: g.type(2, [], unsupported) });
    }
    modules.push({ path, types, values, ...(g.chance(0.3) ? { doc: 'A module.' } : {}) });
  }
  return library(packageName, modules, dependencies);
}

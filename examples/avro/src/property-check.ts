/**
 * The Avro backend's property, checked on one random model (test-only; used by
 * property.test.ts in CI and by `npm run fuzz` for long runs): in `warn-and-skip` mode with
 * random options, generation succeeds; every artifact parses in avsc; a random value of every
 * schema, protocol type and message type round-trips through avsc's binary encoding; two runs
 * are byte-identical; and the model written as IR v4 gives the same result.
 */
import { Buffer } from 'node:buffer';
import avsc from 'avsc';
import type { Artifact } from './json-syntax.ts';
import { generateAvro, type GenerateResult } from './generate.ts';
import { createRandom, randomModel } from './random-ir.ts';
import { avscTypesOf } from './test-support.ts';
import { convertV3ToV4 } from './v3-to-v4.ts';

/** What one checked model produced (for coverage figures). */
export interface ModelOutcome {
  readonly artifacts: number;
  readonly types: number;
  readonly warnings: number;
}

/** A failed property, with what is needed to reproduce it. */
export class PropertyFailure extends Error {
  constructor(
    readonly seed: number,
    readonly options: Record<string, unknown>,
    readonly ir: unknown,
    message: string,
  ) {
    super(`seed ${seed}, options ${JSON.stringify(options)}: ${message}`);
    this.name = 'PropertyFailure';
  }
}

/**
 * Random backend options for `seed`. Linked output is JSON only here: avsc's IDL assembler
 * re-declares types reached through diamond imports (render.test.ts checks linked IDL syntax).
 */
export function randomOptions(seed: number): Record<string, unknown> {
  const random = createRandom(seed ^ 0x5bd1e995);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  const dependencies = pick(['self-contained', 'self-contained', 'self-contained', 'linked']);
  return {
    unsupported: 'warn-and-skip',
    representation: dependencies === 'linked' ? 'json' : pick(['json', 'json', 'idl']),
    projection: pick(['schemas', 'schemas', 'protocol-public']),
    dependencies,
    aliases: pick(['inline', 'inline', 'wrapper-record']),
    logical_types: pick([true, true, false]),
  };
}

type Json = unknown;

/** Full names a JSON artifact defines and refers to (our renderer always writes full names). */
function namesOf(value: Json, defined: Set<string>, referenced: Set<string>, key = ''): void {
  if (typeof value === 'string') {
    if (key === 'type' || key === 'items' || key === 'values' || key === '' || key === 'response') referenced.add(value);
    return;
  }
  if (Array.isArray(value)) {
    for (const v of value) namesOf(v, defined, referenced, key === 'type' || key === 'types' || key === '' || key === 'response' ? '' : key);
    return;
  }
  if (value === null || typeof value !== 'object') return;
  const object = value as Record<string, Json>;
  if ((object.type === 'record' || object.type === 'enum' || object.type === 'error') && typeof object.name === 'string') {
    defined.add(typeof object.namespace === 'string' && object.namespace !== '' ? `${object.namespace}.${object.name}` : object.name);
  }
  for (const [k, v] of Object.entries(object)) if (k !== 'name' && k !== 'namespace' && k !== 'aliases') namesOf(v, defined, referenced, k);
}

/**
 * Parse `dependencies: linked` JSON artifacts as a schema registry would: each artifact with the
 * artifacts defining the names it refers to loaded first (those form a DAG; cycles share a file).
 */
function linkedTypesOf(artifacts: readonly Artifact[]): { path: string; types: avsc.Type[] }[] {
  const docs = artifacts.map((a) => JSON.parse(a.content) as Json);
  const definedBy = new Map<string, number>();
  const needs = docs.map((doc, i) => {
    const defined = new Set<string>();
    const referenced = new Set<string>();
    namesOf(doc, defined, referenced);
    for (const name of defined) if (!definedBy.has(name)) definedBy.set(name, i);
    return { defined, referenced };
  });
  const load = (i: number, registry: Record<string, avsc.Type>, loaded: Set<number>): avsc.Type[] => {
    for (const name of needs[i].referenced) {
      const from = definedBy.get(name);
      if (from !== undefined && from !== i && !needs[i].defined.has(name) && !loaded.has(from)) {
        loaded.add(from);
        load(from, registry, loaded);
      }
    }
    if (artifacts[i].path.endsWith('.avpr')) {
      const service = avsc.Service.forProtocol(docs[i] as never, { registry } as never);
      return [...service.types, ...service.messages.flatMap((m) => [m.requestType, m.responseType])];
    }
    return [avsc.Type.forSchema(docs[i] as avsc.Schema, { registry })];
  };
  return artifacts.map((a, i) => ({ path: a.path, types: load(i, {}, new Set([i])) }));
}

const sameResult = (a: GenerateResult, b: GenerateResult): boolean => JSON.stringify(a) === JSON.stringify(b);

/**
 * Check the property on the model of `seed`.
 * @throws {PropertyFailure} naming the seed and options, carrying the IR.
 */
export async function checkModel(seed: number): Promise<ModelOutcome> {
  const ir = randomModel(seed);
  const options = randomOptions(seed);
  const fail = (message: string): never => {
    throw new PropertyFailure(seed, options, ir, message);
  };
  const result = generateAvro(ir, options);
  if (!result.success) fail(`generation failed: ${JSON.stringify(result.diagnostics.slice(0, 3))}`);
  if (result.diagnostics.some((d) => d.severity !== 'warning')) fail('warn-and-skip reported a non-warning');
  if (!sameResult(generateAvro(ir, options), result)) fail('two runs differ');
  const style = seed % 2 === 0 ? 'wrapped' : 'compact';
  if (!sameResult(generateAvro(convertV3ToV4(ir, style), options), result)) fail(`the v4 (${style}) document gives different output`);
  let parsed: Awaited<ReturnType<typeof avscTypesOf>> = [];
  try {
    parsed = options.dependencies === 'linked' ? linkedTypesOf(result.artifacts) : await avscTypesOf(result.artifacts);
  } catch (error) {
    fail(`avsc rejected an artifact: ${(error as Error).message}`);
  }
  let types = 0;
  for (const { path, types: list } of parsed) {
    for (const type of list) {
      types++;
      const value = type.random();
      let buffer: Buffer;
      let back: unknown;
      try {
        buffer = type.toBuffer(value);
        back = type.fromBuffer(buffer);
      } catch (error) {
        return fail(`${path}: ${type.name ?? type.typeName} did not round-trip a random value: ${(error as Error).message}`);
      }
      if (!type.isValid(back) || !Buffer.from(type.toBuffer(back)).equals(buffer)) fail(`${path}: ${type.name ?? type.typeName} decoded a different value`);
    }
  }
  return { artifacts: result.artifacts.length, types, warnings: result.diagnostics.length };
}

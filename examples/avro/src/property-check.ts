/**
 * The Avro backend's property, checked on one random model (test-only; used by
 * property.test.ts in CI and by `npm run fuzz` for long runs): in `warn-and-skip` mode with
 * random options, generation succeeds; every artifact parses in avsc; a random value of every
 * schema, protocol type and message type round-trips through avsc's binary encoding; two runs
 * are byte-identical; the model written as IR v4 gives the same result; and every JSON artifact
 * is canonical (linked schemas are written without re-sorting, trusting the renderer's order).
 */
import { Buffer } from 'node:buffer';
import { generateAvro, type GenerateResult } from './generate.ts';
import { canonicalJson } from './json-syntax.ts';
import { createRandom, randomModel } from './random-ir.ts';
import { avscLinkedTypesOf, avscTypesOf } from './test-support.ts';
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
  for (const { path, content } of result.artifacts) {
    if ((path.endsWith('.avsc') || path.endsWith('.avpr')) && canonicalJson(JSON.parse(content)) !== content) fail(`${path} is not canonical JSON`);
  }
  let parsed: Awaited<ReturnType<typeof avscTypesOf>> = [];
  try {
    parsed = options.dependencies === 'linked' ? avscLinkedTypesOf(result.artifacts) : await avscTypesOf(result.artifacts);
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

/**
 * Morphir IR for tests: a real one (what morphir-elm 2.82.0 made of `fixtures/ir/customer`, a
 * record type, a function and a constant in `Acme.Customer.Customer`), a minimal valid one with
 * the modules you name, and reading one from a file. Every call returns a fresh copy, so a test
 * may change what it got.
 */
import { parseJson } from '../protocol/json-parse.ts';
import { HOST_FILE_LIMITS } from '../protocol/limits.ts';
import { readTextFile } from '../files/regular-file.ts';
import { resolve } from 'node:path';
import customer from '../../../fixtures/ir/customer/morphir-ir.json' with { type: 'json' };
import { LocalErrorCode, MepError } from '../protocol/errors.ts';

/** A Morphir IR distribution as JSON (formatVersion 3 or 4). */
export type MorphirIr = { formatVersion: number | string; distribution: unknown[] } & Record<string, unknown>;

/**
 * The sample model: package `acme/customer`, module `customer` with the record type `customer`
 * (name, age, active) and the values `find-customer` and `schema-version`; IR formatVersion 3.
 *
 * @example
 * const result = await extension.generate({ ir: sampleIr() });
 */
export function sampleIr(): MorphirIr {
  return structuredClone(customer) as MorphirIr;
}

/** A name as Morphir writes it: `'find-customer'` or `'findCustomer'` → `["find", "customer"]`. */
function morphirName(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .split(/[-_\s.]+/)
    .filter((w) => w !== '')
    .map((w) => w.toLowerCase());
}

/**
 * A minimal valid formatVersion 3 Library distribution: package `packageName` (default
 * `my.package`) with one empty public module per name in `modules` (`'orders'`, `'billing.invoices'`).
 */
export function minimalIr(options: { packageName?: string; modules?: readonly string[] } = {}): MorphirIr {
  const packagePath = (options.packageName ?? 'my.package').split('.').map(morphirName);
  const modules = (options.modules ?? []).map((m) => [m.split('.').map(morphirName), { access: 'Public', value: { types: [], values: [], doc: null } }]);
  return { formatVersion: 3, distribution: ['Library', packagePath, [], { modules }] };
}

/**
 * Reads a Morphir IR file (`morphir-ir.json`), relative to `cwd` (default the process's). Throws
 * MepError(ERR_USAGE) naming the file when it cannot be read or is not a JSON object with a
 * `formatVersion` and a `distribution`.
 */
export async function readIr(path: string, cwd: string = process.cwd()): Promise<MorphirIr> {
  const file = resolve(cwd, path);
  let value: unknown;
  try {
    value = parseJson(await readTextFile(file, { what: 'the Morphir IR', maxBytes: HOST_FILE_LIMITS.inputBytes, limit: 'maxMessageBytes' }), 'data');
  } catch (error) {
    throw new MepError(LocalErrorCode.Usage, `Cannot read the Morphir IR ${file}: ${(error as Error).message}. Pass a morphir-ir.json file.`, { data: { file }, cause: error });
  }
  const ir = value as Partial<MorphirIr> | null;
  if (typeof ir !== 'object' || ir === null || ir.formatVersion === undefined || !Array.isArray(ir.distribution)) {
    throw new MepError(LocalErrorCode.Usage, `${file} is not a Morphir IR distribution (a JSON object with formatVersion and distribution).`, { data: { file } });
  }
  return ir as MorphirIr;
}

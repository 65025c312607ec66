/**
 * The backend entry point: options first, then the IR, projection and rendering. Every
 * domain failure comes back as `success: false` with diagnostics; nothing here throws.
 */
import { AVRO_CODES, AvroError, sortDiagnostics, toMepDiagnostic, type AvroDiagnostic, type Diagnostic } from './diagnostics.ts';
import { projectModules, type TypeStep } from './declarations.ts';
import { readIr } from './ir-reader.ts';
import { IrReadError } from './ir-version.ts';
import type { Artifact, ArtifactSink } from './json-syntax.ts';
import { parseOptions, type AvroOptions } from './options.ts';
import { finishPackage } from './package-check.ts';
import { Projector } from './projector.ts';
import { projectProtocols } from './protocol-projection.ts';
import { renderIdl } from './render-idl.ts';
import { renderJson } from './render-json.ts';

/** The result of a generate request (MEP 0.1 `backend/generate`). */
export type GenerateResult = {
  success: boolean;
  artifacts: Artifact[];
  diagnostics: Diagnostic[];
};

const failed = (diagnostics: Diagnostic[]): GenerateResult => ({ success: false, artifacts: [], diagnostics });

/** Where {@link generateAvroFrom} takes the IR from (a generate request's params). */
export interface IrSource {
  ir: unknown;
}

/** Below this many characters of output no layout hint is given, whatever the ratio. */
const HINT_MIN_CHARS = 16 * 2 ** 20;
/** How many times the `shared` layout's size an output must be for the hint. */
const HINT_RATIO = 8;

const megabytes = (chars: number): string => `${(chars / 1e6).toFixed(chars < 1e7 ? 1 : 0)} MB`;

/**
 * AVRO007 (info) when the output of a self-contained or linked layout, which repeats each root's
 * closure, is far larger than the `shared` layout of the same package, which defines every type
 * once: the sizes, and the option that asks for it. The shared layout is rendered to count it
 * (nothing of it is kept), which costs a small part of what the larger output cost.
 */
function layoutHint(pkg: Parameters<typeof renderJson>[0], options: AvroOptions, chars: number, files: number): Diagnostic | undefined {
  if (options.dependencies === 'shared' || chars < HINT_MIN_CHARS) return undefined;
  let sharedChars = 0;
  let sharedFiles = 0;
  renderJson(pkg, { dependencies: 'shared' }, (artifact) => {
    sharedChars += artifact.content.length;
    sharedFiles++;
  });
  if (chars < HINT_RATIO * sharedChars) return undefined;
  return {
    severity: 'info',
    code: AVRO_CODES.largeLayout,
    message:
      `The ${options.dependencies} layout repeats every type's closure in each root's file: ${megabytes(chars)} in ${files} files. ` +
      `With --option dependencies=shared each named type is defined once, in one .avsc per module (loaded in the order of load-order.json): ${megabytes(sharedChars)} in ${sharedFiles} files.`,
    data: { layout: options.dependencies, chars, files, sharedChars, sharedFiles },
  };
}

function generateFromPackage(source: IrSource, options: AvroOptions, sink: ArtifactSink | undefined, onType: TypeStep | undefined): GenerateResult {
  // Read, then let go: once in the model the parsed IR is garbage, freed right here by reference
  // counting, instead of living on (and being rescanned by every collection, in QuickJS) until
  // the answer is sent. In QuickJS on 2,000 types everything after reading takes a quarter less.
  const ir = source.ir;
  source.ir = null;
  const pkg = readIr(ir);
  const projector = new Projector(options);
  const found: AvroDiagnostic[] = [
    ...projector.register(pkg),
    ...projectModules(projector, pkg.packageName, pkg.modules, onType),
    ...projectProtocols(projector, pkg.packageName, pkg.modules),
  ];
  const sorted = sortDiagnostics(found);
  if (options.unsupported === 'error' && sorted.length > 0) return failed(sorted.map((d) => toMepDiagnostic(d, 'error')));
  const checked = finishPackage(projector);
  const list = options.representation === 'idl' ? renderIdl(checked, options, sink) : renderJson(checked, options, sink);
  const diagnostics = sorted.map((d) => toMepDiagnostic(d, 'warning'));
  const hint = options.representation === 'json' && options.projection === 'schemas' ? layoutHint(checked, options, list.chars, list.order.length) : undefined;
  if (hint) diagnostics.push(hint);
  return { success: true, artifacts: list.artifacts, diagnostics };
}

/**
 * Generate Avro artifacts from a Morphir IR v3 or v4 document.
 *
 * Options are validated before the IR is read, so an invalid option (AVRO004) wins over a bad
 * document. With `unsupported: "error"` (the default) any unsupported construct fails the
 * request with zero artifacts; with `"warn-and-skip"` the rest is generated and each skipped
 * declaration or value is reported as a warning located at `morphir-fqname:<fqname>`.
 *
 * @example
 * const result = generateAvro(JSON.parse(irText), { projection: 'protocol-public' });
 * if (result.success) for (const a of result.artifacts) writeFile(a.path, a.content);
 */
export function generateAvro(ir: unknown, options: Record<string, unknown> = {}): GenerateResult {
  return generateAvroFrom({ ir }, options);
}

/**
 * {@link generateAvro} reading the IR from `source.ir` and setting it to null once read, so the
 * parsed document can be freed while the rest runs (as `generateAvro`'s own argument cannot).
 * With `sink` each artifact is handed over as soon as it is rendered and the result's
 * `artifacts` is empty: only one file is held at a time (a backend passes `ctx.emit`). An error
 * found while rendering (AVRO003, AVRO005) can come after some were handed over; the result then
 * says `success: false`, and a host publishes none of them. `onType` is called before each type
 * is projected (progress, cancellation); what it throws is thrown from here.
 *
 * @example
 * generate: (params) => generateAvroFrom(params, params.options ?? {})
 */
export function generateAvroFrom(source: IrSource, options: Record<string, unknown> = {}, sink?: ArtifactSink, onType?: TypeStep): GenerateResult {
  let parsed: AvroOptions;
  try {
    parsed = parseOptions(options);
  } catch (error) {
    if (error instanceof AvroError) return failed([toMepDiagnostic(error.diagnostic, 'error')]);
    throw error;
  }
  try {
    return generateFromPackage(source, parsed, sink, onType);
  } catch (error) {
    if (error instanceof IrReadError) return failed([{ severity: 'error', code: error.code, message: error.message }]);
    if (error instanceof AvroError) return failed([toMepDiagnostic(error.diagnostic, 'error')]);
    // Deeply nested or cyclic input can exhaust the stack; report it as bad input, not a crash.
    if (error instanceof RangeError) {
      return failed([{ severity: 'error', code: 'invalid_ir', message: `Morphir IR could not be read: ${error.message}` }]);
    }
    throw error;
  }
}

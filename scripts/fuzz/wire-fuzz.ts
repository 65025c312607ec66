/**
 * The wire fuzz (test support): seeded, generated inputs for everything that reads what an
 * extension or a client sends before any of it is trusted: the Content-Length and ndjson
 * decoders, the body-to-message decoder (parseJsonBody with its nesting bound), the envelope
 * classifier (parseMessage), the nesting scan, and artifact-path validation with its collision
 * set. Every case is checked against a reference model (reference-*.ts), so a wrong answer fails
 * as surely as a crash; any error that is not a MepError of the expected code is a failure too.
 * Each case has its own seed, derived from the run's seed, the target and the case number, so
 * one failing case replays alone (`npm run fuzz -- --only <target> --seed S --case N`).
 */
import { checkArtifactPath } from '../../host/src/artifacts/validate.ts';
import { createArtifactPathSet } from '../../host/src/artifacts/path-set.ts';
import { createContentLengthDecoder } from '../../host/src/framing/content-length.ts';
import { parseJsonBody } from '../../host/src/framing/frame-decoder.ts';
import { createNdjsonDecoder } from '../../host/src/framing/ndjson.ts';
import { isMepError, LocalErrorCode } from '../../host/src/protocol/errors.ts';
import { findExcessNesting, MAX_JSON_DEPTH } from '../../host/src/protocol/json-depth.ts';
import { parseMessage } from '../../host/src/rpc/message.ts';
import { createSeededRandom, type SeededRandom } from '../../fixtures/testing/random.ts';
import { referenceContentLength, referenceNdjson, type Decoded } from './reference-framing.ts';
import { referenceClassify, referenceExcessNesting, referenceUnheldNumber, referenceNoCollision, referencePathSafe } from './reference-envelope.ts';
import { randomJsonText, randomPath, randomStream, splitStream } from './wire-inputs.ts';

/** The parts the fuzz drives, each with its share of the cases. */
export const FUZZ_TARGETS = { 'content-length': 0.3, ndjson: 0.2, envelope: 0.25, 'artifact-paths': 0.15, nesting: 0.1 } as const;
/** One of {@link FUZZ_TARGETS}. */
export type FuzzTarget = keyof typeof FUZZ_TARGETS;

/** Options of {@link runWireFuzz}. */
export interface WireFuzzOptions {
  /** Cases in all, shared among the targets by their weights. */
  cases: number;
  seed: number;
  /** Only these targets (all their cases). */
  only?: readonly FuzzTarget[];
  /** Only this case number of each target (replay). */
  caseNumber?: number;
  /** Stop a target after this many failures. Default 10. */
  maxFailures?: number;
  /** Stand-ins for the code under test (a test of the fuzz itself plants faults through them). */
  subjects?: Partial<FuzzSubjects>;
}

/** The code the fuzz checks. */
export interface FuzzSubjects {
  createContentLengthDecoder: typeof createContentLengthDecoder;
  createNdjsonDecoder: typeof createNdjsonDecoder;
  parseJsonBody: typeof parseJsonBody;
  parseMessage: typeof parseMessage;
  checkArtifactPath: typeof checkArtifactPath;
  findExcessNesting: typeof findExcessNesting;
}

const REAL: FuzzSubjects = { createContentLengthDecoder, createNdjsonDecoder, parseJsonBody, parseMessage, checkArtifactPath, findExcessNesting };
let subject: FuzzSubjects = REAL;

/** What one target's run found. */
export interface FuzzReport {
  target: FuzzTarget;
  cases: number;
  failures: string[];
}

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

/** The seed of case `n` of `target`. */
function caseSeed(seed: number, target: FuzzTarget, n: number): number {
  let h = (seed ^ 0x2545f491) >>> 0;
  for (const c of `${target}#${n}`) h = Math.imul(h ^ c.charCodeAt(0), 0x01000193) >>> 0;
  return h;
}

/** The code of a thrown error, or a description of why it is not a typed one. */
function codeOf(error: unknown): string {
  return isMepError(error) ? String(error.code) : `untyped ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`;
}

/** Feeds `chunks` to a decoder, bodies handed over as they complete, then ends it. */
function decodeChunks(decoder: { push(c: Uint8Array, onBody?: (b: string) => void): string[]; end(): void }, chunks: Uint8Array[]): Decoded {
  const bodies: string[] = [];
  try {
    for (const chunk of chunks) decoder.push(chunk, (b) => bodies.push(b));
    decoder.end();
  } catch (error) {
    return { bodies, error: codeOf(error) };
  }
  return { bodies };
}

function sameDecoded(got: Decoded, want: Decoded): string | undefined {
  if (got.error !== want.error) return `error ${got.error ?? 'none'}, the reference says ${want.error ?? 'none'}`;
  if (got.bodies.length !== want.bodies.length) return `${got.bodies.length} bodies, the reference has ${want.bodies.length}`;
  const differs = got.bodies.findIndex((b, i) => b !== want.bodies[i]);
  return differs < 0 ? undefined : `body ${differs} differs from the reference`;
}

/** Decodes one body into a message and classifies it, against the references. */
function checkBody(body: string): string | undefined {
  let want: string | Record<string, unknown>;
  if (referenceExcessNesting(body, MAX_JSON_DEPTH) >= 0) want = LocalErrorCode.Limit;
  else {
    try {
      const value: unknown = JSON.parse(body);
      want = referenceUnheldNumber(body) !== undefined ? LocalErrorCode.Framing : typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : LocalErrorCode.Framing;
    } catch {
      want = LocalErrorCode.Framing;
    }
  }
  let got: string | Record<string, unknown>;
  try {
    got = subject.parseJsonBody('fuzz', body);
  } catch (error) {
    got = codeOf(error);
  }
  if (typeof want === 'string' || typeof got === 'string') return got === want ? undefined : `parseJsonBody gave ${typeof got === 'string' ? got : 'a message'}, the reference ${typeof want === 'string' ? want : 'a message'}`;
  const parsed = subject.parseMessage(got);
  const expected = referenceClassify(want);
  const seen = { kind: parsed.kind, ...('id' in parsed ? { id: parsed.id } : {}), ...(parsed.kind === 'invalid' ? { looksLike: parsed.looksLike } : {}) };
  return JSON.stringify(seen) === JSON.stringify(expected) ? undefined : `parseMessage gave ${JSON.stringify(seen)}, the reference ${JSON.stringify(expected)}`;
}

function contentLengthCase(random: SeededRandom): string | undefined {
  const { stream, maxBody, maxHeader } = randomStream(random, 'content-length');
  const chunks = splitStream(random, stream);
  const got = decodeChunks(subject.createContentLengthDecoder({ name: 'fuzz', maxBodyBytes: maxBody, maxHeaderBytes: maxHeader }), chunks);
  const problem = sameDecoded(got, referenceContentLength(stream, maxBody, maxHeader)) ?? got.bodies.map(checkBody).find((p) => p !== undefined);
  return problem && `${problem}; stream ${hex(stream)}, cuts at ${chunks.map((c) => c.length).join(',')}, maxBody ${maxBody}, maxHeader ${maxHeader}`;
}

function ndjsonCase(random: SeededRandom): string | undefined {
  const { stream, maxBody } = randomStream(random, 'ndjson');
  const chunks = splitStream(random, stream);
  const got = decodeChunks(subject.createNdjsonDecoder({ name: 'fuzz', maxLineBytes: maxBody }), chunks);
  const problem = sameDecoded(got, referenceNdjson(stream, maxBody)) ?? got.bodies.map(checkBody).find((p) => p !== undefined);
  return problem && `${problem}; stream ${hex(stream)}, cuts at ${chunks.map((c) => c.length).join(',')}, maxLine ${maxBody}`;
}

function envelopeCase(random: SeededRandom): string | undefined {
  const text = randomJsonText(random);
  const problem = checkBody(text);
  return problem && `${problem}; body ${JSON.stringify(text.length > 400 ? `${text.slice(0, 400)}…` : text)}`;
}

function pathsCase(random: SeededRandom): string | undefined {
  const paths = Array.from({ length: 1 + random.int(6) }, () => randomPath(random));
  const set = createArtifactPathSet('fuzz');
  const accepted: string[] = [];
  for (const path of paths) {
    let got = 'accepted';
    try {
      subject.checkArtifactPath('fuzz', path);
      set.add(path);
    } catch (error) {
      got = codeOf(error);
    }
    const want = referencePathSafe(path) && referenceNoCollision(accepted, path) ? 'accepted' : LocalErrorCode.Artifact;
    if (got !== want) return `${JSON.stringify(path)} after ${JSON.stringify(accepted)}: ${got}, the reference says ${want}`;
    if (got === 'accepted') accepted.push(path);
  }
  return undefined;
}

function nestingCase(random: SeededRandom): string | undefined {
  const text = randomJsonText(random, { allowInvalid: true });
  const max = random.chance(0.2) ? MAX_JSON_DEPTH : random.int(12);
  const got = subject.findExcessNesting(text, max);
  const want = referenceExcessNesting(text, max);
  return got === want ? undefined : `findExcessNesting(…, ${max}) = ${got}, the reference ${want}; text ${JSON.stringify(text.slice(0, 400))}`;
}

const CASES: Record<FuzzTarget, (random: SeededRandom) => string | undefined> = {
  'content-length': contentLengthCase,
  ndjson: ndjsonCase,
  envelope: envelopeCase,
  'artifact-paths': pathsCase,
  nesting: nestingCase,
};

/**
 * Runs the fuzz: `cases` cases shared among the targets by their weights (or all of them for
 * `only`), and reports, per target, the failures with what replays each.
 *
 * @example
 * const reports = runWireFuzz({ cases: 100_000, seed: 22 });
 * assert.equal(reports.flatMap((r) => r.failures), []);
 */
export function runWireFuzz(options: WireFuzzOptions): FuzzReport[] {
  const targets = options.only ?? (Object.keys(FUZZ_TARGETS) as FuzzTarget[]);
  const weight = targets.reduce((sum, t) => sum + FUZZ_TARGETS[t], 0);
  const maxFailures = options.maxFailures ?? 10;
  subject = { ...REAL, ...options.subjects };
  try {
    return targets.map((target) => runTarget(target, options, weight, maxFailures));
  } finally {
    subject = REAL;
  }
}

function runTarget(target: FuzzTarget, options: WireFuzzOptions, weight: number, maxFailures: number): FuzzReport {
  {
    const count = Math.max(1, Math.round((options.cases * FUZZ_TARGETS[target]) / weight));
    const failures: string[] = [];
    const numbers = options.caseNumber === undefined ? Array.from({ length: count }, (_, n) => n) : [options.caseNumber];
    for (const n of numbers) {
      let problem: string | undefined;
      try {
        problem = CASES[target](createSeededRandom(caseSeed(options.seed, target, n)));
      } catch (error) {
        problem = `the check itself threw ${codeOf(error)}`;
      }
      if (problem !== undefined) failures.push(`${target} seed ${options.seed} case ${n}: ${problem}`);
      if (failures.length >= maxFailures) break;
    }
    return { target, cases: numbers.length, failures };
  }
}


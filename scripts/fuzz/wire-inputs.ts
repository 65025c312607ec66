/**
 * Generated inputs of the wire fuzz (test support): JSON-RPC message texts (valid, malformed,
 * nested around the host's limit), framed streams with seeded mutations (a flipped or inserted
 * byte, a cut, a log line, a bad or repeated Content-Length, a wrong length), the chunks a pipe
 * may cut them into, and artifact paths built from safe, hostile and look-alike segments.
 */
import { joinBytes as concat } from '../../host/src/framing/utf8.ts';
import { MAX_JSON_DEPTH } from '../../host/src/protocol/json-depth.ts';
import type { SeededRandom } from '../../fixtures/testing/random.ts';

const encoder = new TextEncoder();

const STRINGS = ['', 'x', 'morphir.ping', '[{', '}]', '"', '\\', '\\"[', 'é😀', '\u0000\u001f', '\ud800', 'a\nb', '\u2028', '{"a":[1]}'];
const IDS: unknown[] = [1, 0, -7, 2 ** 53 - 1, 2 ** 53, 1.5, -0, 1e21, 'req-1', '', null, true, [], {}];

const NUMBER_TOKENS = ['1e+300', '1E300', '1e400', '-1e400', '1e-400', '9007199254740993', '-0', '-0.0e7', '0.10000000000000001', '123456789012345678901234567890', '1.50', '5e-324'];

function randomValue(random: SeededRandom, depth: number): unknown {
  const r = random.next();
  if (depth > 5 || r < 0.35) return random.pick<unknown>([0, -1, 1.25, 1e300, true, false, null, ...STRINGS]);
  const n = random.int(4);
  if (r < 0.65) return Array.from({ length: n }, () => randomValue(random, depth + 1));
  const out: Record<string, unknown> = {};
  for (let i = 0; i < n; i++) out[random.pick(['a', 'b', 'id', 'method', '__proto__', 'é', '', 'code', 'message'])] = randomValue(random, depth + 1);
  return out;
}

/** A message object: each member present or not, with right and wrong values. */
function randomMessage(random: SeededRandom): Record<string, unknown> {
  const m: Record<string, unknown> = {};
  const maybe = (p: number, key: string, value: () => unknown) => {
    if (random.chance(p)) Object.defineProperty(m, key, { value: value(), enumerable: true, writable: true, configurable: true });
  };
  maybe(0.93, 'jsonrpc', () => (random.chance(0.85) ? '2.0' : random.pick<unknown>(['1.0', 2, null, ' 2.0'])));
  const shape = random.int(4); // request, notification, result, error
  if (shape <= 1) maybe(0.95, 'method', () => (random.chance(0.85) ? random.pick(['morphir.ping', 'morphir.backend.generate', 'x']) : random.pick<unknown>(['', 5, null, []])));
  if (shape === 0 || shape >= 2) maybe(0.9, 'id', () => random.pick(IDS));
  if (shape <= 1) maybe(0.6, 'params', () => (random.chance(0.8) ? randomValue(random, 1) : random.pick<unknown>([5, 'x', true])));
  if (shape === 2 || random.chance(0.03)) maybe(0.95, 'result', () => randomValue(random, 1));
  if (shape === 3 || random.chance(0.03)) {
    maybe(0.95, 'error', () =>
      random.chance(0.8) ? { code: random.pick<unknown>([-32601, 1, 1.5, '1', 2 ** 60]), message: random.pick<unknown>(['m', 5, '']), ...(random.chance(0.3) ? { data: randomValue(random, 2) } : {}) } : random.pick<unknown>([null, 5, [], 'e']),
    );
  }
  return m;
}

/**
 * One message text: mostly a message object, sometimes another JSON value, a text nested just
 * below, at or past the host's limit, or (with `allowInvalid`, and rarely otherwise) broken JSON.
 */
export function randomJsonText(random: SeededRandom, options: { allowInvalid?: boolean } = {}): string {
  const r = random.next();
  if (r < 0.04) {
    const depth = MAX_JSON_DEPTH - 3 + random.int(6);
    const open = random.chance(0.5) ? '[' : '{"a":';
    const close = open === '[' ? ']' : '}';
    return `{"jsonrpc":"2.0","id":1,"result":${open.repeat(depth - 1)}${open === '[' ? '' : '1'}${close.repeat(depth - 1)}}`;
  }
  if (r < 0.1) return JSON.stringify(randomValue(random, 0)) ?? 'null';
  // 1e300 is written `1e+300`: some become numbers a double does not hold (refused), or holds written otherwise.
  const text = JSON.stringify(randomMessage(random)).replace(/1e\+300/g, () => random.pick(NUMBER_TOKENS));
  if (!(options.allowInvalid || r > 0.97)) return text;
  const at = random.int(text.length + 1);
  switch (random.int(4)) {
    case 0:
      return text.slice(0, at);
    case 1:
      return `${text.slice(0, at)}${random.pick(['"', '[', '}', '\\', ',', '\n', '\u00e9'])}${text.slice(at)}`;
    case 2:
      return `${text.slice(0, at)}${text.slice(at + 1)}`;
    default:
      return text;
  }
}

function randomBody(random: SeededRandom): Uint8Array {
  if (random.chance(0.06)) return Uint8Array.from(Array.from({ length: random.int(8) }, () => random.pick([0x22, 0x7b, 0xc3, 0xa9, 0xff, 0xed, 0xa0, 0x80, 0xf0, 0x9f, 0xef, 0xbb, 0xbf, 0x0a, 0x0d])));
  const text = randomJsonText(random);
  return encoder.encode(random.chance(0.03) ? `\ufeff${text}` : text);
}

function contentLengthFrame(random: SeededRandom, body: Uint8Array): string[] {
  const name = random.pick(['Content-Length', 'content-length', 'CONTENT-LENGTH', 'Content-length']);
  const value = random.chance(0.9) ? `${random.pick(['', ' ', '  ', '\t'])}${random.chance(0.05) ? '00' : ''}${body.length}${random.pick(['', '', ' ', '\t'])}` : random.pick(['-1', '1.5', '', '+3', '0x10', '99999999999999999', ' 1 2', 'abc']);
  const lines = [`${name}:${value}`];
  for (let i = random.int(3); i > 0; i--) lines.splice(random.int(lines.length + 1), 0, `${random.pick(['Content-Type', 'X-Trace', 'x', 'A-B.c~'])}:${random.pick([' application/vscode-jsonrpc; charset=utf-8', '', ' é', ' :\t:'])}`);
  if (random.chance(0.03)) lines.push(`Content-Length: ${body.length}`);
  return lines;
}


function mutate(random: SeededRandom, bytes: Uint8Array): Uint8Array {
  if (bytes.length === 0 || !random.chance(0.35)) return bytes;
  const at = random.int(bytes.length);
  switch (random.int(5)) {
    case 0: {
      const flipped = bytes.slice();
      flipped[at] = random.pick([0x0d, 0x0a, 0x3a, 0x20, 0x7b, 0x00, 0xff, 0xc3, 0x35, 0x09]);
      return flipped;
    }
    case 1:
      return concat([bytes.subarray(0, at), encoder.encode(random.pick(['\r\n', '\n', 'Starting server\n', ':', 'Content-Length: 2\r\n\r\n{}', '\u00e9'])), bytes.subarray(at)]);
    case 2:
      return concat([bytes.subarray(0, at), bytes.subarray(at + 1 + random.int(4))]);
    case 3:
      return bytes.subarray(0, at);
    default:
      return concat([bytes, encoder.encode(random.pick(['log line\n', '\r\n', '{"jsonrpc":"2.0"}', ' ']))]);
  }
}

/** A framed stream of a few messages, perhaps mutated, with the limits to decode it under. */
export function randomStream(random: SeededRandom, framing: 'content-length' | 'ndjson'): { stream: Uint8Array; maxBody: number; maxHeader: number } {
  const parts: Uint8Array[] = [];
  for (let n = random.int(5); n > 0; n--) {
    const body = randomBody(random);
    if (framing === 'content-length') {
      const head = contentLengthFrame(random, body).join('\r\n');
      parts.push(encoder.encode(`${head}\r\n\r\n`), random.chance(0.05) ? body.subarray(0, Math.max(0, body.length - 1)) : body);
    } else {
      if (random.chance(0.1)) parts.push(encoder.encode(random.pick(['\n', ' \t\r\n', '\r\n'])));
      // One line: a raw line feed inside a body becomes a space (JSON allows it between tokens).
      const flat = body.map((b) => (b === 0x0a ? 0x20 : b));
      parts.push(encoder.encode(random.pick(['', '', ' ', '\t '])), flat, encoder.encode(random.pick(['', '', ' ', '\r'])), encoder.encode(random.chance(0.95) ? '\n' : ''));
    }
  }
  return {
    stream: mutate(random, concat(parts)),
    maxBody: random.chance(0.7) ? 64 * 1024 * 1024 : random.int(400),
    maxHeader: random.chance(0.8) ? 8 * 1024 : 8 + random.int(200),
  };
}

/** The chunks a pipe may deliver `stream` in: whole, cut at a few places (empty chunks too), or byte by byte. */
export function splitStream(random: SeededRandom, stream: Uint8Array): Uint8Array[] {
  if (stream.length < 96 && random.chance(0.1)) return Array.from(stream, (b) => Uint8Array.of(b));
  const cuts = Array.from({ length: random.int(6) }, () => random.int(stream.length + 1)).sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let at = 0;
  for (const cut of [...cuts, stream.length]) {
    chunks.push(stream.subarray(at, cut));
    at = cut;
  }
  return chunks;
}

const SAFE = ['a', 'b', 'A', 'schemas', 'Types', 'types', 'x.avsc', 'X.avsc', 'caf\u00e9', 'cafe\u0301', 'Stra\u00dfe', 'STRASSE', '\u00df', '\u212a', 'k', 'K', 'file.tar.gz', 'com0', 'aux_x', 'con1x', '.hidden', 'a.b.c'];
const HOSTILE = ['', '.', '..', 'con', 'CON.txt', 'con .txt', 'conin$', 'CONOUT$.log', 'com1', 'COM\u00b9.log', 'lpt9', 'nul.tar.gz', 'a.', 'a ', 'a:b', 'a?b', 'a*b', '<x>', 'a|b', 'a"b', 'x\u0001', 'tab\t', 'del\u007f', '\u009b31m', 'a\u2028b', 'lone\ud800', '\udfffx'];

/** An artifact path of safe, hostile and look-alike segments, now and then absolute, Windows-style or too long. */
export function randomPath(random: SeededRandom): string {
  const segment = (): string => {
    const r = random.next();
    if (r < 0.55) return random.pick(SAFE);
    if (r < 0.8) return random.pick(HOSTILE);
    if (r < 0.9) return Array.from({ length: 1 + random.int(10) }, () => random.pick([...'abcXYZ019_-~é'])).join('');
    return random.pick(['x', '\u00e9', '\ud83d\ude00']).repeat(random.pick([63, 64, 85, 86, 127, 128, 254, 255, 256]));
  };
  let path = Array.from({ length: 1 + random.int(4) }, segment).join(random.chance(0.03) ? '\\' : '/');
  if (random.chance(0.03)) path = `/${path}`;
  if (random.chance(0.03)) path = `C:${path}`;
  if (random.chance(0.02)) path = `${path}\u0000`;
  if (random.chance(0.02)) path = Array.from({ length: 120 }, () => 'segment9').join('/');
  return path;
}

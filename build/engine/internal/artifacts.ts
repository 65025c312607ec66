/** Small byte-level helpers of the engine build: a C header from JS text, a wasm custom section. */

/**
 * Turns prelude.js (or another JS text: `name`, `from`) into a C header defining it as a string (ASCII only, checked).
 * Not const: the engine zeroes the text once it has compiled it, so the snapshot does not carry it.
 */
export function preludeHeader(js: string, name = 'mep_prelude_js', from = 'glue/prelude.js'): string {
  const bad = /[^\x09\x0a\x20-\x7e]/.exec(js);
  if (bad) throw new Error(`${from} must be ASCII; found U+${bad[0].codePointAt(0)?.toString(16)} at offset ${bad.index}`);
  const lines = js.split('\n').map((l) => `  "${l.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\?/g, '\\?')}\\n"`);
  return `/* Generated from ${from} by build/engine/compile.ts. */\nstatic char ${name}[] =\n${lines.join('\n')};\n`;
}

function leb128(n: number): number[] {
  const out: number[] = [];
  do {
    let byte = n & 0x7f;
    n >>>= 7;
    if (n !== 0) byte |= 0x80;
    out.push(byte);
  } while (n !== 0);
  return out;
}

/** Returns `wasm` with a custom section `name` holding `contents` appended at the end. */
export function appendCustomSection(wasm: Uint8Array, name: string, contents: Uint8Array): Buffer {
  const nameBytes = Buffer.from(name, 'utf8');
  const payload = Buffer.concat([Buffer.from(leb128(nameBytes.length)), nameBytes, contents]);
  return Buffer.concat([wasm, Buffer.from([0]), Buffer.from(leb128(payload.length)), payload]);
}

/**
 * The author workloads (bench/guests/workloads/) as plain scripts for the native quickjs-ng
 * runner (build/engine/native.ts): bundled by esbuild into one script that reads its IR with
 * `readText` and prints a digest of the result, so callgrind counts the engine running exactly
 * the code the wasm guests run, without the PDK and the transport around it.
 */
import { buildSync } from 'esbuild';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_LINT_CONFIG } from './guests/workloads/ir-lint.ts';
import { BENCH_CACHE, ROOT } from './lib.ts';

/**
 * The native runner has quickjs-libc's globals only; the guests have the platform's TextEncoder
 * (build/engine/glue/globals/, in C). @noble/hashes needs its encode: UTF-8 by hand into one
 * Uint8Array, enough for it and cheap beside the hashing (an array of numbers copied through the
 * iterator protocol was a tenth of the lint's count, which the guests never pay).
 */
const TEXT_ENCODER = `if (typeof TextEncoder === 'undefined') globalThis.TextEncoder = class {
  encode(s) {
    const out = new Uint8Array(s.length * 3);
    let n = 0;
    for (let i = 0; i < s.length; i++) {
      let c = s.charCodeAt(i);
      if (c >= 0xd800 && c < 0xdc00 && i + 1 < s.length) {
        const d = s.charCodeAt(i + 1);
        if (d >= 0xdc00 && d < 0xe000) { c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00); i++; }
      }
      if (c < 0x80) out[n++] = c;
      else if (c < 0x800) { out[n++] = 0xc0 | (c >> 6); out[n++] = 0x80 | (c & 63); }
      else if (c < 0x10000) { out[n++] = 0xe0 | (c >> 12); out[n++] = 0x80 | ((c >> 6) & 63); out[n++] = 0x80 | (c & 63); }
      else { out[n++] = 0xf0 | (c >> 18); out[n++] = 0x80 | ((c >> 12) & 63); out[n++] = 0x80 | ((c >> 6) & 63); out[n++] = 0x80 | (c & 63); }
    }
    return out.slice(0, n);
  }
};`;

/** A workload the native runner can run: its name and the call, given `ir` (parsed). */
const CALLS = {
  graphql: {
    imports: "import { graphqlFromIr } from './workloads/graphql-schema.ts';",
    call: 'graphqlFromIr(ir).then(function (o) { print(o.typeCount + ":" + o.schema.length + ":" + o.operations.length + ":" + o.zip.length); })',
  },
  lint: {
    imports: "import { DEFAULT_LINT_CONFIG, lintIr } from './workloads/ir-lint.ts';",
    call: 'Promise.resolve(lintIr(ir, LINT_OFF.reduce(function (c, r) { return c.replace(r + \' = "\', r + \' = "off" # \'); }, DEFAULT_LINT_CONFIG))).then(function (o) { print(o.findings.length + ":" + o.report.length); })',
  },
  dsl: {
    imports: "import { compileDsl, dslFromIr } from './workloads/type-dsl.ts';",
    call: 'Promise.resolve(compileDsl(dslFromIr(ir))).then(function (o) { print(o.errors.length + ":" + JSON.stringify(o.ir).length); })',
  },
} as const;

/** The workloads {@link nativeWorkloadScript} knows. */
export type NativeWorkload = keyof typeof CALLS;

/** Options of {@link nativeWorkloadScript}. */
export interface NativeWorkloadOptions {
  /** The lint's rules to turn off (`lint` only), e.g. `duplicate-definitions`. */
  lintRulesOff?: readonly string[];
}

/**
 * Writes the script of `workload` reading the IR at `irPath` to .cache/bench/native/ and returns
 * its path. Run it as `runner SCRIPT`; it prints a digest of the result or throws.
 */
export function nativeWorkloadScript(workload: NativeWorkload, irPath: string, options: NativeWorkloadOptions = {}): string {
  const { imports, call } = CALLS[workload];
  const off = options.lintRulesOff ?? [];
  for (const rule of off) if (workload !== 'lint' || !DEFAULT_LINT_CONFIG.includes(`\n${rule} = "`)) throw new Error(`no lint rule ${rule} to turn off in the ${workload} workload: the rules are those of DEFAULT_LINT_CONFIG (bench/guests/workloads/ir-lint.ts)`);
  const source = `${imports}\nconst LINT_OFF = ${JSON.stringify(off)};\nconst ir = JSON.parse(readText(${JSON.stringify(irPath)}));\n${call}.catch(function (e) { print("failed: " + e + "\\n" + e.stack); throw e; });\n`;
  const out = buildSync({
    stdin: { contents: source, resolveDir: join(ROOT, 'bench', 'guests'), loader: 'ts', sourcefile: `${workload}-native.ts` },
    bundle: true,
    format: 'iife',
    target: 'es2022',
    platform: 'neutral',
    mainFields: ['module', 'main'],
    define: { 'process.env.NODE_ENV': '"production"' },
    banner: { js: TEXT_ENCODER },
    write: false,
    logLevel: 'silent',
  });
  const dir = join(BENCH_CACHE, 'native');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${workload}${off.length ? `-without-${off.join('+')}` : ''}.js`);
  writeFileSync(file, out.outputFiles[0]!.text);
  return file;
}

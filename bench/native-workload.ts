/**
 * The author workloads (bench/guests/workloads/) as plain scripts for the native quickjs-ng
 * runner (build/engine/native.ts): bundled by esbuild into one script that reads its IR with
 * `readText` and prints a digest of the result, so callgrind counts the engine running exactly
 * the code the wasm guests run, without the PDK and the transport around it.
 */
import { buildSync } from 'esbuild';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BENCH_CACHE, ROOT } from './lib.ts';

/**
 * The native runner has quickjs-libc's globals only; the guests have the platform's TextEncoder
 * (build/engine/glue/globals/). @noble/hashes needs its encode: UTF-8 by hand, enough for it.
 */
const TEXT_ENCODER = `if (typeof TextEncoder === 'undefined') globalThis.TextEncoder = class {
  encode(s) {
    const out = [];
    for (const ch of s) {
      const c = ch.codePointAt(0);
      if (c < 0x80) out.push(c);
      else if (c < 0x800) out.push(0xc0 | (c >> 6), 0x80 | (c & 63));
      else if (c < 0x10000) out.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
      else out.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
    }
    return new Uint8Array(out);
  }
};`;

/** A workload the native runner can run: its name and the call, given `ir` (parsed). */
const CALLS = {
  graphql: {
    imports: "import { graphqlFromIr } from './workloads/graphql-schema.ts';",
    call: 'graphqlFromIr(ir).then(function (o) { print(o.typeCount + ":" + o.schema.length + ":" + o.operations.length + ":" + o.zip.length); })',
  },
  lint: {
    imports: "import { lintIr } from './workloads/ir-lint.ts';",
    call: 'Promise.resolve(lintIr(ir)).then(function (o) { print(o.findings.length + ":" + o.report.length); })',
  },
  dsl: {
    imports: "import { compileDsl, dslFromIr } from './workloads/type-dsl.ts';",
    call: 'Promise.resolve(compileDsl(dslFromIr(ir))).then(function (o) { print(o.errors.length + ":" + JSON.stringify(o.ir).length); })',
  },
} as const;

/** The workloads {@link nativeWorkloadScript} knows. */
export type NativeWorkload = keyof typeof CALLS;

/**
 * Writes the script of `workload` reading the IR at `irPath` to .cache/bench/native/ and returns
 * its path. Run it as `runner SCRIPT`; it prints a digest of the result or throws.
 */
export function nativeWorkloadScript(workload: NativeWorkload, irPath: string): string {
  const { imports, call } = CALLS[workload];
  const source = `${imports}\nconst ir = JSON.parse(readText(${JSON.stringify(irPath)}));\n${call}.catch(function (e) { print("failed: " + e + "\\n" + e.stack); throw e; });\n`;
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
  const file = join(dir, `${workload}.js`);
  writeFileSync(file, out.outputFiles[0]!.text);
  return file;
}

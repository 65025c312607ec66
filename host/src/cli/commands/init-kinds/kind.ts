/**
 * What `mep init --kind K` writes for one kind of extension: its guest source, behaviour test,
 * sample input, the command that calls it, and what its README says it is.
 */

/** The kinds `mep init --kind` scaffolds; `backend` is the default. */
export const INIT_KINDS = ['backend', 'frontend', 'validator', 'transform'] as const;
export type InitKind = (typeof INIT_KINDS)[number];

/** One kind's template. */
export interface KindTemplate {
  /** One line for the README and the source's header: what the sample does. */
  summary: string;
  /** src/extension.ts for extension id `id`. */
  source(id: string): string;
  /** test/extension.test.mjs (plain ESM for `node --test`, using mep-runtime/testing). */
  test: string;
  /** The sample input, by relative path. */
  samples(): Record<string, string>;
  /** The shell command that calls the built dist/extension.wasm on the sample (in the next steps). */
  call: string;
  /** What the README says after `npx mep install .`. */
  installed(id: string): string;
}

// Spelled in pieces: the package build rewrites every import.meta\.url in the bundled command's
// source text to keep module locations (scripts/build-package.ts), this string's included.
export const META_URL = ['import', 'meta', 'url'].join('.');

/** The lines every generated test starts with: the entry, built by the test kit for each runtime. */
export const testPreamble = (imports: string): string => `// The extension's behaviour on its sample, in both runtimes: the test kit builds src/extension.ts
// to a wasm module and to a process script, and runs each (npm test).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { ${imports} } from 'mep-runtime/testing';

const entry = new URL('../src/extension.ts', ${META_URL});
const here = (path) => fileURLToPath(new URL(\`../\${path}\`, ${META_URL}));
`;

/**
 * Test support: a hostile backend for the embeds' red-team tests, built once (cached by content
 * hash in `.cache/guest`). What it does is read from the IR's `hostile` member, so the demo page's
 * IR box drives it: `{"paths": [...]}` returns those artifact paths, `{"error": s, "errorChars": n}`
 * throws an error of s and n more characters, `{"diagnostic": s}` reports a warning saying s, `{"depth": n}` answers a result nested n deep, `{"spin": true}` never answers,
 * `{"echoOptions": true}` writes the options it was given (as entries) into its artifact, `{"progress": n}`
 * reports n progress messages of 1,000 characters first.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildGuest } from '../../build/guest/build-guest.ts';
import { REPO_ROOT } from '../../examples/testing/built.ts';

const SOURCE = `import { defineExtension } from 'mep-runtime/guest-pdk';
export default defineExtension({
  info: { id: 'hostile.embed', name: 'hostile embed', version: '1.0.0' },
  backend: {
    targets: ['t'],
    irVersions: ['3'],
    generate({ ir, options }, ctx) {
      const hostile = (ir as { hostile?: { paths?: string[]; error?: string; errorChars?: number; diagnostic?: string; depth?: number; spin?: boolean; echoOptions?: boolean; progress?: number } }).hostile ?? {};
      for (let i = 0; i < (hostile.progress ?? 0); i++) ctx.progress('report', i + ' ' + 'x'.repeat(1000));
      while (hostile.spin) {}
      if (typeof hostile.errorChars === 'number') throw new Error((hostile.error ?? '') + 'x'.repeat(hostile.errorChars));
      const artifacts = (hostile.paths ?? ['ok.txt']).map((path) => ({ path, content: hostile.echoOptions ? JSON.stringify(Object.entries(options)) : 'x', binary: false }));
      let deep: unknown = 1;
      for (let i = 0; i < (hostile.depth ?? 0); i++) deep = [deep];
      const diagnostics = hostile.diagnostic === undefined ? [] : [{ severity: 'warning', code: 'hostile', message: hostile.diagnostic }];
      return { artifacts, diagnostics, ...(hostile.depth ? { deep } : {}) } as never;
    },
  },
});
`;

/** An IR that makes the hostile guest do `hostile`. */
export const hostileIr = (hostile: Record<string, unknown>): string => JSON.stringify({ formatVersion: 3, distribution: ['Library', [['acme']], [], { modules: [] }], hostile });

let built: Promise<string> | undefined;

/** The hostile guest's wasm file, built on first use. */
export function builtHostileGuest(): Promise<string> {
  built ??= (async () => {
    const dir = join(REPO_ROOT, '.cache', 'guest-fixtures', 'embed-hostile');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'hostile.ts'), SOURCE);
    const outFile = join(dir, 'hostile.wasm');
    await buildGuest({ entry: join(dir, 'hostile.ts'), outFile, cwd: dir, typecheck: false });
    return outFile;
  })();
  return built;
}

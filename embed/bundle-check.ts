/**
 * The one rule every embedding bundle obeys: the host core reaches browsers and edge runtimes
 * only if no Node built-in is bundled (architecture.md, Decisions). An esbuild plugin keeps such
 * imports external and visible in the metafile; {@link checkNoNodeImports} then fails the build.
 */
import { builtinModules } from 'node:module';
import type { Metafile, Plugin } from 'esbuild';
import { LocalErrorCode, MepError } from '../host/src/protocol/errors.ts';

const NODE_BUILTINS = new Set(builtinModules);
const isNodeBuiltin = (path: string): boolean => path.startsWith('node:') || NODE_BUILTINS.has(path);

/** Keeps Node built-ins out of the bundle but in the metafile, so the check can name their importers. */
export const flagNodeImports: Plugin = {
  name: 'flag-node-imports',
  setup(b) {
    b.onResolve({ filter: /.*/ }, (args) => (isNodeBuiltin(args.path) ? { path: args.path, external: true } : undefined));
  },
};

/** Throws MepError(ERR_BUILD) listing every bundled file that imports a Node built-in. */
export function checkNoNodeImports(metafile: Metafile): void {
  const offenders: string[] = [];
  for (const [file, input] of Object.entries(metafile.inputs)) {
    for (const imported of input.imports) if (isNodeBuiltin(imported.path)) offenders.push(`${file} imports ${imported.path}`);
  }
  if (offenders.length > 0) {
    throw new MepError(
      LocalErrorCode.Build,
      `The bundle would pull Node built-ins, which browsers and edge runtimes do not have:\n  ${offenders.join('\n  ')}\nKeep node: imports out of the host core (protocol/, rpc/, session/, framing/, transport/wasm/ outside its node/ folder).`,
      { data: { offenders } },
    );
  }
}

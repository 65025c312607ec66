/**
 * An IR → IR transform as an MEP extension (`morphir.transform.transform`): removes private
 * definitions that nothing public can reach, optionally with every doc comment. The IR version is
 * unchanged (v3 in, v3 out; v4 in, v4 out); the report is returned as an info diagnostic.
 */
import { defineExtension, diagnostic } from '../../guest-pdk/src/index.ts';
import { prunePrivate } from './src/prune.ts';
import { prunePrivateV4 } from './src/prune-v4.ts';

/** The IR major of the input: `4`/`"4.0.0"` is v4, anything else is read as v3. */
const majorOf = (ir: unknown): '3' | '4' => {
  const version = (ir as { formatVersion?: unknown } | null)?.formatVersion;
  return version === 4 || (typeof version === 'string' && version.split('.')[0] === '4') ? '4' : '3';
};

export default defineExtension({
  info: { id: 'morphir-prune-private', name: 'Prune unreachable private definitions', version: '0.1.0' },
  transform: {
    irVersions: ['3', '4'],
    transform(params) {
      const options = (params.options ?? {}) as { stripDocs?: unknown };
      const unknown = Object.keys(options).filter((k) => k !== 'stripDocs');
      if (unknown.length > 0 || (options.stripDocs !== undefined && typeof options.stripDocs !== 'boolean')) {
        return { diagnostics: [diagnostic('error', `Invalid options: the only option is stripDocs (boolean)${unknown.length ? `; unknown: ${unknown.join(', ')}` : ''}.`, { code: 'PRUNE001' })] };
      }
      const version = majorOf(params.ir);
      try {
        const prune = version === '4' ? prunePrivateV4 : prunePrivate;
        const { ir, report } = prune(params.ir as Parameters<typeof prunePrivate>[0], options.stripDocs === true);
        const removed = report.removedTypes.length + report.removedValues.length;
        return {
          irVersion: version,
          ir: ir as Record<string, unknown>,
          diagnostics: [diagnostic('info', `Removed ${removed} unreachable private definition(s) and ${report.removedModules.length} module(s).`, { code: 'PRUNE000', data: report })],
        };
      } catch (error) {
        return { diagnostics: [diagnostic('error', `Not a Morphir IR v${version} Library distribution: ${(error as Error).message}.`, { code: 'PRUNE002' })] };
      }
    },
  },
});

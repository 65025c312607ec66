/**
 * An IR → IR transform as an MEP extension (`morphir.transform.transform`): removes private
 * definitions that nothing public can reach, optionally with every doc comment. The IR version is
 * unchanged; the report is returned as an info diagnostic.
 */
import { defineExtension, diagnostic } from '../../guest-pdk/src/index.ts';
import { prunePrivate } from './src/prune.ts';

export default defineExtension({
  info: { id: 'morphir-prune-private', name: 'Prune unreachable private definitions', version: '0.1.0' },
  transform: {
    irVersions: ['3'],
    transform(params) {
      const options = (params.options ?? {}) as { stripDocs?: unknown };
      const unknown = Object.keys(options).filter((k) => k !== 'stripDocs');
      if (unknown.length > 0 || (options.stripDocs !== undefined && typeof options.stripDocs !== 'boolean')) {
        return { diagnostics: [diagnostic('error', `Invalid options: the only option is stripDocs (boolean)${unknown.length ? `; unknown: ${unknown.join(', ')}` : ''}.`, { code: 'PRUNE001' })] };
      }
      try {
        const { ir, report } = prunePrivate(params.ir as Parameters<typeof prunePrivate>[0], options.stripDocs === true);
        const removed = report.removedTypes.length + report.removedValues.length;
        return {
          irVersion: '3',
          ir: ir as Record<string, unknown>,
          diagnostics: [diagnostic('info', `Removed ${removed} unreachable private definition(s) and ${report.removedModules.length} module(s).`, { code: 'PRUNE000', data: report })],
        };
      } catch (error) {
        return { diagnostics: [diagnostic('error', `Not a Morphir IR v3 Library distribution: ${(error as Error).message}.`, { code: 'PRUNE002' })] };
      }
    },
  },
});

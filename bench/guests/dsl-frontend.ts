/**
 * Bench guest (issue 32): a frontend for a small type language, parsed with chevrotain
 * (bench/guests/workloads/type-dsl.ts), every document one or more modules of one library. Built by
 * bench/author-workloads.bench.ts to wasm and process; never shipped.
 */
import { defineExtension, diagnostic } from '../../guest-pdk/src/index.ts';
import { compileDsl } from './workloads/type-dsl.ts';

export default defineExtension({
  info: { id: 'bench.dsl-frontend', name: 'Bench type-DSL frontend', version: '0.0.0' },
  frontend: {
    languages: [{ id: 'type-dsl', fileExtensions: ['.types'] }],
    irVersions: ['3'],
    compile(params, ctx) {
      ctx.progress('report', 'parsing');
      const text = params.sources.documents.map((d) => d.text).join('\n');
      const { ir, errors } = compileDsl(text);
      ctx.progress('end', errors.length === 0 ? 'compiled' : `${errors.length} errors`, 100);
      return { irVersion: '3', ir, diagnostics: errors.map((e) => diagnostic('error', e.message, { code: 'DSL001', at: { uri: params.sources.documents[0]?.uri ?? 'input', line: e.line - 1, character: e.column - 1 } })) };
    },
  },
});

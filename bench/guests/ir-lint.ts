/**
 * Bench guest (issue 32): an IR lint an author would write (pluralize, @noble/hashes, date-fns,
 * smol-toml; bench/guests/workloads/ir-lint.ts) as a validator; the rule configuration is the
 * `config` option (TOML). Built by bench/author-workloads.bench.ts to wasm and process.
 */
import { defineExtension, diagnostic } from '../../guest-pdk/src/index.ts';
import { DEFAULT_LINT_CONFIG, lintIr } from './workloads/ir-lint.ts';

export default defineExtension({
  info: { id: 'bench.ir-lint', name: 'Bench IR lint', version: '0.0.0' },
  validator: {
    irVersions: ['3'],
    validate(params, ctx) {
      const config = typeof params.options?.config === 'string' ? params.options.config : DEFAULT_LINT_CONFIG;
      ctx.progress('report', 'linting');
      const { findings, report } = lintIr(params.ir, config);
      ctx.progress('end', `${findings.length} findings`, 100);
      const diagnostics = findings.map((f) => diagnostic(f.severity, `${f.subject}: ${f.message}`, { code: f.rule }));
      return { diagnostics: [...diagnostics, diagnostic('info', 'lint report', { code: 'report', data: { toml: report } })] };
    },
  },
});

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { defineExtension, diagnostic, textArtifact } from '../../../guest-pdk/src/index.ts';
import { createInProcessTransport } from '../testing/in-process-transport.ts';
import { runConformance } from './runner.ts';

const backend = defineExtension({
  info: { id: 'conformance.backend', name: 'Conformance backend', version: '1.0.0' },
  // Its generate does no long work: a cancel finds it answered or about to (the case allows both).
  cancellation: true,
  backend: {
    targets: ['echo'],
    irVersions: ['3'],
    generate(params, ctx) {
      ctx.progress('begin', 'generating');
      const ir = params.ir as { distribution?: unknown };
      if (!Array.isArray(ir.distribution) || ir.distribution[0] !== 'Library') {
        return { artifacts: [], diagnostics: [diagnostic('error', 'not a Library distribution', { code: 'invalid_ir' })] };
      }
      ctx.progress('end');
      return { artifacts: [textArtifact('echo/ir.json', JSON.stringify(params.ir))] };
    },
  },
});

const InProcess = suite('conformance :: in-process PDK extension');

InProcess('should pass every case against a PDK backend', async () => {
  const results = await runConformance({ open: async () => createInProcessTransport(backend) });
  const failed = results.filter((r) => r.status === 'failed');
  assert.equal(failed, [], JSON.stringify(failed, null, 2));
  const skipped = results.filter((r) => r.status === 'skipped').map((r) => r.name);
  assert.ok(skipped.every((n) => /compile|source errors|validate|transform/.test(n)), `unexpected skips: ${skipped.join(', ')}`);
  assert.ok(results.filter((r) => r.status === 'passed').length >= 15);
});

InProcess('should name the failing case for an extension that breaks one rule', async () => {
  // A backend whose generate result omits `diagnostics` after the PDK filled it in would be
  // invisible; instead break a rule the PDK cannot fix: answer an unknown target with success.
  const sloppy = defineExtension({
    info: { id: 'sloppy', name: 'Sloppy', version: '1.0.0' },
    backend: { targets: ['echo'], irVersions: ['3'], generate: () => ({ artifacts: [textArtifact('x', '')], success: true }) },
  });
  const results = await runConformance({ open: async () => createInProcessTransport(sloppy) });
  const failed = results.filter((r) => r.status === 'failed').map((r) => r.name);
  assert.equal(failed, ['invalid IR is a result with diagnostics, not a protocol error']);
});
const frontend = (strict: boolean) =>
  defineExtension({
    info: { id: 'conformance.frontend', name: 'Conformance frontend', version: '1.0.0' },
    frontend: {
      languages: [{ id: 'elm', fileExtensions: ['.elm'] }],
      irVersions: ['3'],
      compile(params) {
        const broken = params.sources.documents.filter((d) => d.text.includes('((('));
        if (strict && broken.length > 0) {
          return { irVersion: '3', ir: null, diagnostics: broken.map((d) => diagnostic('error', 'unbalanced parentheses', { code: 'ELM001', at: { uri: d.uri, line: 2, character: 12, endCharacter: 15 } })) };
        }
        return { irVersion: '3', ir: { formatVersion: 3, distribution: ['Library', [['local'], ['example']], [], { modules: [] }] }, modules: [] };
      },
    },
  });

InProcess('should run the compile and diagnostics cases against a PDK frontend, and name the one a lax frontend breaks', async () => {
  const strict = await runConformance({ open: async () => createInProcessTransport(frontend(true)) });
  assert.equal(strict.filter((r) => r.status === 'failed'), []);
  assert.ok(strict.some((r) => r.name === 'source errors are diagnostics with zero-based ranges' && r.status === 'passed'));
  const lax = await runConformance({ open: async () => createInProcessTransport(frontend(false)) });
  assert.equal(lax.filter((r) => r.status === 'failed').map((r) => r.name), ['source errors are diagnostics with zero-based ranges']);
});

InProcess.run();

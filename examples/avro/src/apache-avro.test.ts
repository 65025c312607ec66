import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseWithApacheAvro } from './apache-avro.ts';
import { generateAvro } from './generate.ts';
import type { Artifact } from './json-syntax.ts';
import { randomOptions } from './property-check.ts';
import { randomModel } from './random-ir.ts';

const fixtures = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'fixtures');
const elmModels = readdirSync(join(fixtures, 'ir'), { withFileTypes: true }).filter((d) => d.isDirectory() && d.name !== 'reference').map((d) => d.name);
const JSON_OPTIONS: Record<string, unknown>[] = [{}, { projection: 'protocol-public' }, { aliases: 'wrapper-record' }, { logical_types: false }];

const apache = suite('avro :: Apache Avro (Python, Avro 1.11) parses what we write');

apache('should reject the reference backend\'s root-alias shape and accept ours (LookupResult)', () => {
  const reference = { path: 'LookupResult.avsc', content: readFileSync(join(fixtures, 'avro-golden', 'edge-generic-result.avsc'), 'utf8') };
  const ir = JSON.parse(readFileSync(join(fixtures, 'ir', 'customer-edges', 'morphir-ir.json'), 'utf8'));
  const ours = generateAvro(ir, {}).artifacts.find((a) => a.path.endsWith('/LookupResult.avsc')) as Artifact;
  const verdict = parseWithApacheAvro([reference, ours]);
  assert.match(verdict.version, /^1\.11/);
  assert.equal(verdict.failures.map((f) => f.path), ['LookupResult.avsc']);
});

apache('should accept every JSON artifact of every Elm model under the JSON option sets', () => {
  const artifacts: Artifact[] = [];
  for (const model of elmModels) {
    const ir = JSON.parse(readFileSync(join(fixtures, 'ir', model, 'morphir-ir.json'), 'utf8'));
    for (const options of JSON_OPTIONS) {
      const result = generateAvro(ir, { unsupported: 'warn-and-skip', ...options });
      artifacts.push(...result.artifacts.map((a) => ({ ...a, path: `${model}${JSON.stringify(options)}/${a.path}` })));
    }
  }
  assert.ok(artifacts.length > 50, `${artifacts.length} artifacts`);
  assert.equal(parseWithApacheAvro(artifacts).failures, []);
});

apache('should accept the JSON artifacts of 300 random models', () => {
  const artifacts: Artifact[] = [];
  for (let seed = 1; artifacts.length < 600 && seed <= 2000; seed++) {
    const options = randomOptions(seed);
    if (options.representation !== 'json' || options.dependencies !== 'self-contained') continue;
    const result = generateAvro(randomModel(seed), options);
    artifacts.push(...result.artifacts.map((a) => ({ ...a, path: `seed-${seed}/${a.path}` })));
  }
  assert.ok(artifacts.length >= 600);
  assert.equal(parseWithApacheAvro(artifacts).failures, []);
});

apache.run();

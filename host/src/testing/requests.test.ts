import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { normalizeCompileParams } from '../protocol/compile-params.ts';
import { compileRequest, irRequest, minimalIr, sampleProject, sourceDocument, TEST_SOURCE_ROOT } from './index.ts';

const Requests = suite('testing :: requests');

Requests('should put each document under the source root, in the current sources envelope MEP accepts', () => {
  const params = compileRequest({ languageId: 'tiny', files: { 'Orders.tiny': 'a', 'Acme/Billing Items.tiny': 'b' } });
  assert.equal(normalizeCompileParams(params), params, 'already in the current envelope');
  assert.is(params.sources?.root, `${TEST_SOURCE_ROOT}/`);
  assert.equal(params.sources?.documents.map((d) => d.uri), ['file:///work/project/Orders.tiny', 'file:///work/project/Acme/Billing%20Items.tiny']);
  assert.equal(params.sources?.documents.map((d) => [d.languageId, d.version]), [['tiny', 1], ['tiny', 1]]);
  assert.is(params.documents, undefined, 'never both envelopes');
});

Requests('should refuse a path that leaves the source root or is absolute', () => {
  for (const path of ['../x.tiny', '/etc/passwd', 'a//b.tiny', '', 'a/./b.tiny']) {
    assert.throws(() => sourceDocument(path, '', { languageId: 'tiny' }), /not a relative path below the source root/, path);
  }
});

Requests('should read a sample project from a folder with the folder as the root', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'mep-sample-project-'));
  try {
    await mkdir(join(dir, 'Acme'));
    await writeFile(join(dir, 'Acme/Orders.tiny'), 'type Id = Int\n');
    await writeFile(join(dir, 'notes.md'), 'not a source');
    const params = await sampleProject(dir, { languageId: 'tiny', fileExtensions: ['.tiny'] });
    assert.is(params.sources?.root, `${pathToFileURL(dir).href}/`);
    assert.equal(params.sources?.documents.map((d) => [d.uri, d.text]), [[`${pathToFileURL(dir).href}/Acme/Orders.tiny`, 'type Id = Int\n']]);
    let refused: Error | undefined;
    await sampleProject(dir, { languageId: 'elm', fileExtensions: ['.elm'] }).catch((e: Error) => (refused = e));
    assert.match(String(refused?.message), /holds no \.elm file/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

Requests('should give validate and transform params the IR version of the IR', () => {
  assert.equal(irRequest(minimalIr(), { strict: true }), { ir: minimalIr(), irVersion: '3', options: { strict: true } });
});

Requests.run();

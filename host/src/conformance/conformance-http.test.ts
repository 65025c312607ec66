import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { fileURLToPath } from 'node:url';
import { startTestHttp } from '../serve/testing/http.ts';
import { createHttpTransport } from '../transport/http.ts';
import { runConformance } from './runner.ts';

const wellBehaved = fileURLToPath(new URL('../../../fixtures/extensions/well-behaved.mjs', import.meta.url));

/**
 * The cases that need lifecycle state per client: a stateless HTTP wire (HttpChannel's: no
 * session id) keeps none, so a server answers them as the session it holds allows. README,
 * "Served over HTTP", says so.
 */
const STATELESS = [
  'requests before initialize are refused with -32014',
  'a second initialize is refused with -32600',
  'shutdown, then only exit is accepted',
];

const Http = suite('conformance :: over HTTP (mep serve --http, runtime "http")');

Http('should pass every case but those needing per-client lifecycle state against the well-behaved extension served over HTTP', async () => {
  const served = await startTestHttp({ echo: wellBehaved });
  try {
    const results = await runConformance({ open: async () => createHttpTransport({ url: `${served.listener.url}/` }), requestTimeoutMs: 5_000 });
    const failed = results.filter((r) => r.status === 'failed').map((r) => r.name);
    assert.equal(failed.sort(), [...STATELESS].sort());
    assert.ok(results.filter((r) => r.status === 'passed').length >= 16);
  } finally {
    await served.close();
  }
});

Http.run();

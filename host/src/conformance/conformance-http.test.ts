import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { fileURLToPath } from 'node:url';
import { captureIo } from '../cli/io.ts';
import { main } from '../cli/main.ts';
import { startRemote } from '../cli/testing/remote-server.ts';
import { startTestHttp } from '../serve/testing/http.ts';
import { createHttpTransport } from '../transport/http.ts';
import { runConformance, type CaseResult } from './runner.ts';

const wellBehaved = fileURLToPath(new URL('../../../fixtures/extensions/well-behaved.mjs', import.meta.url));

/**
 * The cases that need a session the client holds: lifecycle state per client, `morphir.exit`,
 * the extension's processes. A stateless HTTP wire (HttpChannel's: one request per POST, no
 * session id, no notification) carries none of them, and MEP 0.1 leaves lifecycle to the
 * transport's specification, so they are skipped there, saying why. README, "Served over HTTP".
 */
const SESSION_CASES = [
  'requests before initialize are refused with -32014',
  'a second initialize is refused with -32600',
  'shutdown, then only exit is accepted',
  'exit after shutdown ends the extension',
  'shuts down without leaving a child process behind',
];

const names = (results: readonly CaseResult[], status: CaseResult['status']): string[] => results.filter((r) => r.status === status).map((r) => r.name).sort();

const Http = suite('conformance :: over HTTP (mep serve --http, runtime "http")');

Http('should pass every case against the well-behaved extension served over HTTP, skipping those that need a session the client holds, saying why', async () => {
  const served = await startTestHttp({ echo: wellBehaved });
  try {
    const results = await runConformance({ open: async () => createHttpTransport({ url: `${served.listener.url}/` }), requestTimeoutMs: 5_000 });
    assert.equal(names(results, 'failed'), [], JSON.stringify(results.filter((r) => r.status === 'failed')));
    const skipped = results.filter((r) => SESSION_CASES.includes(r.name));
    assert.is(skipped.length, SESSION_CASES.length);
    for (const r of skipped) {
      assert.is(r.status, 'skipped', r.name);
      assert.match(r.reason ?? '', /stateless/);
    }
    assert.ok(names(results, 'passed').length >= 16);
  } finally {
    await served.close();
  }
});

Http('should skip the session cases against an independent JSON-RPC HTTP server too (the wire decides, not the server)', async () => {
  const remote = await startRemote();
  try {
    const results = await runConformance({ open: async () => createHttpTransport({ url: remote.url }), requestTimeoutMs: 5_000 });
    for (const name of SESSION_CASES) assert.is(results.find((r) => r.name === name)?.status, 'skipped', name);
    // The other cases still run against it, and still fail what it gets wrong (it has no extension.info).
    assert.ok(names(results, 'failed').includes('extension.info and extension.capabilities match initialize'));
  } finally {
    await remote.close();
  }
});

Http('mep conformance http://… exits 0 for a conforming server, and says how many cases it skipped', async () => {
  const served = await startTestHttp({ echo: wellBehaved });
  try {
    const io = captureIo();
    const code = await main(['conformance', `${served.listener.url}/`], io);
    const output = [...io.stdout, ...io.stderr].join('\n');
    assert.is(code, 0, output);
    assert.match(output, /\d+ passed, 0 failed, \d+ skipped/);
    assert.match(output, /skip {2}lifecycle: a second initialize is refused with -32600 — /);
  } finally {
    await served.close();
  }
});

Http.run();

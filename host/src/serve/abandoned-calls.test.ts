import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Method } from '../protocol/methods.ts';
import type { JsonRpcMessage } from '../transport/types.ts';
import { ServeMethod } from './methods.ts';
import { connectServed } from './testing/connect.ts';
import { readEvents, startTestHttp } from './testing/http.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
// Ignores $/cancelRequest: a generate with `runMs` goes on, sending progress and logs naming `note`.
const ignoresCancel = join(root, 'fixtures/extensions/ignores-cancel.mjs');
const ir = { formatVersion: 3, distribution: ['Library', [['acme']], [], { modules: [] }] };
const generate = (id: string, options: Record<string, unknown>) => ({ jsonrpc: '2.0', id, method: 'morphir.backend.generate', params: { ir, target: 'echo', options } });
const post = (url: string, body: unknown): Promise<Response> =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify(body) });

const Abandoned = suite('mep serve :: a call abandoned while the extension still runs it');

Abandoned('should not lend another client a session still running a call its client abandoned (its logs, progress and queue) :: pooled', async () => {
  const served = await startTestHttp({ echo: ignoresCancel });
  try {
    // Alice's call runs 1.5 s and ignores the cancel her leaving sends.
    const alice = await post(served.listener.url, generate('a-1', { runMs: 1_500, note: 'alice-private' }));
    await readEvents(alice, (event) => event.method === Method.Progress);
    await served.nextSent((m) => m.method === Method.CancelRequest);
    // Bob's call, 400 ms long, while Alice's still runs in the extension.
    const bob = await readEvents(await post(served.listener.url, generate('b-1', { delayMs: 400, progress: true })), () => undefined);
    const leaked = bob.filter((event) => JSON.stringify(event).includes('alice-private'));
    assert.equal(leaked, [], `Bob's stream carried ${leaked.length} events of Alice's abandoned call`);
    const foreign = bob.filter((event) => event.method === Method.Progress && (event.params as { requestId?: unknown }).requestId !== 'b-1');
    assert.equal(foreign, [], 'progress of another call (under the server\'s own id) reached Bob');
    const answer = bob[bob.length - 1] as JsonRpcMessage;
    assert.is(answer.id, 'b-1');
    assert.is((answer.result as { success?: boolean }).success, true);
  } finally {
    await served.close();
  }
});

Abandoned('should send a socket client no progress of a call it cancelled that the extension still runs (nor the server\'s own id for it) :: socket', async () => {
  const { client, end } = connectServed();
  try {
    const opened = await client.request('open', ServeMethod.Open, { extension: ignoresCancel });
    const sessionId = (opened.result as { sessionId: string }).sessionId;
    const call = client.request('c-1', ServeMethod.Call, { sessionId, method: Method.BackendGenerate, params: generate('-', { runMs: 600, note: 'cancelled-call' }).params });
    await client.next((m) => m.method === ServeMethod.Progress);
    client.notify('$/cancelRequest', { id: 'c-1' });
    await call;
    const after = client.seen.length;
    // The extension goes on for 600 ms; a ping answered after it shows the session still serves.
    await new Promise((resolve) => setTimeout(resolve, 700));
    assert.equal((await client.request('p-1', ServeMethod.Call, { sessionId, method: 'morphir.ping' })).result, { ok: true });
    const stale = client.seen.slice(after).filter((m) => m.method === ServeMethod.Progress);
    assert.equal(stale, [], `the client got ${stale.length} progress reports of a call it had cancelled`);
  } finally {
    await end();
  }
});

const Forged = suite('mep serve :: notifications an extension forges');

Forged('should tag an extension\'s logs and progress with its own session, and pass on only what MEP 0.1 says they hold :: forged', async () => {
  const forged = join(root, 'fixtures/extensions/forged-notifications.mjs');
  const { client, end } = connectServed();
  try {
    const open = async (id: string, extension: string) => ((await client.request(id, ServeMethod.Open, { extension })).result as { sessionId: string }).sessionId;
    const mine = await open('o-1', forged);
    const other = await open('o-2', join(root, 'fixtures/extensions/well-behaved.mjs'));
    const notifications = [
      { method: Method.Log, params: { level: 'error', message: 'as the other session', sessionId: other } },
      { method: Method.Progress, params: { requestId: '$self', kind: 'report', message: 'as the other session', sessionId: other } },
      { method: Method.Log, params: { level: 'critical', message: 'a level MEP does not have' } },
      { method: Method.Log, params: { level: 'info', message: { text: 'not a string' } } },
      { method: Method.Progress, params: { requestId: '$self', kind: 'sideways', percentage: 400 } },
      { method: Method.Log, params: { level: 'info', message: 'last' } },
    ];
    const answer = await client.request('c-1', ServeMethod.Call, { sessionId: mine, method: Method.BackendGenerate, params: generate('-', { notifications }).params });
    assert.ok('result' in answer, JSON.stringify(answer));
    await client.next((m) => m.method === ServeMethod.Log && (m.params as { message?: unknown }).message === 'last');
    const fromCall = client.seen.filter((m) => (m.method === ServeMethod.Log || m.method === ServeMethod.Progress) && /as the other|MEP does not|not a string|sideways|last/.test(JSON.stringify(m.params)));
    const sessions = fromCall.map((m) => (m.params as { sessionId: unknown }).sessionId);
    assert.equal([...new Set(sessions)], [mine], 'an extension\'s notification went out as another session\'s');
    const shown = fromCall.map((m) => [(m.params as { level?: unknown }).level ?? (m.params as { kind?: unknown }).kind, (m.params as { message?: unknown }).message]);
    assert.equal(shown, [['error', 'as the other session'], ['report', 'as the other session'], ['info', 'last']]);
  } finally {
    await end();
  }
});

Abandoned.run();
Forged.run();

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { haveTools, runWrk, startReplicaSet } from './testing/replicas.ts';

const ScaleOut = suite('deploy :: mep serve --http replicas behind nginx');

/** A generate whose answer names the request: the IR's package is `r<i>`. */
const request = (i: number): string =>
  JSON.stringify({ jsonrpc: '2.0', id: i, method: 'morphir.backend.generate', params: { ir: { formatVersion: 3, distribution: ['Library', [[`r${i}`]], [], { modules: [] }] }, target: 'echo', options: { delayMs: 20 } } });

ScaleOut('should lose no request and answer none twice when a replica is killed mid-run', async () => {
  if (!haveTools()) {
    console.log('  (skipped: nginx and wrk are not installed; scripts/setup.sh installs them)');
    return;
  }
  const set = await startReplicaSet(2);
  try {
    const total = 240;
    const concurrency = 8;
    const answers = new Map<number, { status: number; body: string }[]>();
    let next = 0;
    let answered = 0;
    let killed = false;
    const worker = async (): Promise<void> => {
      for (let i = next++; i < total; i = next++) {
        const response = await fetch(set.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: request(i) });
        const list = answers.get(i) ?? [];
        list.push({ status: response.status, body: await response.text() });
        answers.set(i, list);
        // A third of the way in, with calls in flight on both replicas, one dies without warning.
        if (++answered === total / 3 && !killed) {
          killed = true;
          set.replicas[0]?.child.kill('SIGKILL');
        }
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    assert.ok(killed);
    for (let i = 0; i < total; i++) {
      const list = answers.get(i) ?? [];
      assert.is(list.length, 1, `request ${i} answered ${list.length} times`);
      const [answer] = list as [{ status: number; body: string }];
      assert.is(answer.status, 200, `request ${i}: ${answer.body}`);
      const body = JSON.parse(answer.body) as { id: number; result: { artifacts: { path: string }[] } };
      assert.is(body.id, i);
      // The answer is this request's, not another's sent twice.
      assert.is(body.result.artifacts[0]?.path, `echo/r${i}.json`);
    }
    // The replica left standing still serves, under wrk's load too.
    const load = await runWrk(set.url, 2, 4);
    assert.ok(load.requests > 0);
    assert.is(load.non2xx + load.socket_errors + load.bad_answers, 0, JSON.stringify(load));
  } finally {
    await set.close();
  }
});

ScaleOut.run();

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import lifecycle from '../../fixtures/mep/reference/lifecycle-cases.json' with { type: 'json' };
import describeCases from '../../fixtures/mep/reference/describe-cases.json' with { type: 'json' };
import malformed from '../../fixtures/mep/reference/malformed-envelopes.json' with { type: 'json' };
import { checkAgreement, parseClaimSet } from '../../host/src/protocol/index.ts';
import { createDispatcher } from './dispatcher.ts';
import { defineExtension } from './define-extension.ts';
import { MepError } from '../../host/src/protocol/errors.ts';
import { textArtifact } from './results.ts';
import { INIT, call, fakeHost } from './testing/dispatcher-harness.ts';

function echoExtension() {
  return defineExtension({
    info: { id: 'test.echo', name: 'Echo', version: '1.2.3' },
    backend: {
      targets: ['echo', 'shout'],
      irVersions: ['3'],
      async generate(params, ctx) {
        ctx.progress('begin', 'starting', 0);
        if ((params.options as { fail?: boolean } | undefined)?.fail) throw new Error('boom');
        if ((params.options as { bad?: boolean } | undefined)?.bad) return { artifacts: [{ path: 'x', content: 1 as unknown as string, binary: false }] };
        if ((params.options as { secret?: string } | undefined)?.secret) {
          const value = await ctx.secret((params.options as { secret: string }).secret);
          return { artifacts: [textArtifact('secret.txt', value)] };
        }
        ctx.progress('end');
        return { artifacts: [textArtifact(`out/${params.target}.txt`, JSON.stringify(params.ir))] };
      },
    },
  });
}

const Lifecycle = suite('dispatcher :: lifecycle (reference SDK cases)');

for (const c of lifecycle.cases) {
  Lifecycle(`should follow ${c.name}`, async () => {
    const { host } = fakeHost();
    const d = createDispatcher(echoExtension(), host);
    for (const step of c.before) {
      const reply = step === 'initialize' ? await call(d, 'morphir.initialize', INIT) : await call(d, step, {});
      assert.ok(reply.result !== undefined, `before-step ${step} failed: ${JSON.stringify(reply.error)}`);
    }
    for (const r of c.requests) {
      if (r.method === 'morphir.exit') {
        assert.is(await d.dispatch(JSON.stringify({ jsonrpc: '2.0', method: r.method })), undefined);
        continue;
      }
      const reply = await call(d, r.method, r.params, lifecycle.requestId);
      assert.equal(reply.id, lifecycle.requestId);
      const expect = r.expect as { errorCode?: number; error?: boolean; ok?: boolean };
      if (expect.errorCode !== undefined) assert.is(reply.error?.code, expect.errorCode, `${r.method}: ${JSON.stringify(reply)}`);
      if (expect.error) assert.ok(reply.error, `${r.method} should fail`);
      if (expect.ok) assert.ok(reply.result !== undefined, `${r.method} should succeed: ${JSON.stringify(reply.error)}`);
    }
  });
}
Lifecycle.run();

const Describe = suite('dispatcher :: describe');

for (const c of describeCases.cases) {
  if (!('request' in c)) continue;
  Describe(`should answer ${c.name}`, async () => {
    const d = createDispatcher(echoExtension(), fakeHost().host);
    const reply = JSON.parse((await d.dispatch(JSON.stringify(c.request))) as string);
    assert.is(reply.error?.code, (c.expect as { errorCode: number }).errorCode);
  });
}

Describe('should return a claim set that agrees with initialize, without side effects', async () => {
  const d = createDispatcher(echoExtension(), fakeHost().host);
  const first = await call(d, 'morphir.extension.describe', { protocolVersions: ['0.1'] });
  const second = await call(d, 'morphir.extension.describe', { protocolVersions: ['0.1'] });
  assert.equal(first.result, second.result);
  assert.is(d.state, 'loaded');
  const claims = parseClaimSet(first.result);
  const init = await call(d, 'morphir.initialize', INIT, 2);
  assert.equal(checkAgreement(init.result, claims), { ok: true });
  const caps = await call(d, 'morphir.extension.capabilities', {}, 3);
  assert.equal(caps.result, init.result.capabilities);
});

Describe('should list requires.host as critical when the extension needs a newer host', async () => {
  const ext = defineExtension({ info: { id: 'a', name: 'A', version: '1.0.0' }, requiresHost: ['>=0.1.0'], validator: { irVersions: ['3'], validate: () => ({}) } });
  assert.equal(ext.claims.critical, ['requires.host']);
  assert.equal(ext.claims.requires, { host: ['>=0.1.0'] });
});
Describe.run();

const Envelopes = suite('dispatcher :: envelopes');

for (const body of malformed.bodies) {
  Envelopes(`should refuse ${body} with -32600`, async () => {
    const d = createDispatcher(echoExtension(), fakeHost().host);
    const reply = JSON.parse((await d.dispatch(body)) as string);
    assert.is(reply.error.code, -32600);
    const parsed = JSON.parse(body);
    const validId = parsed && typeof parsed === 'object' && (typeof parsed.id === 'string' || Number.isInteger(parsed.id));
    assert.equal(reply.id, validId ? parsed.id : null);
  });
}

Envelopes('should answer unparsable JSON with -32700 and a null id', async () => {
  const reply = JSON.parse((await createDispatcher(echoExtension(), fakeHost().host).dispatch('{"jsonrpc":')) as string);
  assert.is(reply.error.code, -32700);
  assert.is(reply.id, null);
});

Envelopes('should answer a message its binding parsed exactly as the same text, and a failing parse with -32700', async () => {
  const d = createDispatcher(echoExtension(), fakeHost().host);
  await d.dispatch(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'morphir.initialize', params: INIT }));
  const message = { jsonrpc: '2.0', id: 'g', method: 'morphir.backend.generate', params: { ir: { a: [1, 'é'] }, target: 'echo' } };
  const viaText = JSON.parse((await d.dispatch(JSON.stringify(message))) as string);
  const viaParsed = JSON.parse((await d.dispatchParsed(() => structuredClone(message))) as string);
  assert.equal(viaParsed, viaText);
  assert.is(viaParsed.result.artifacts[0].content, '{"a":[1,"é"]}');
  const broken = JSON.parse(d.dispatchParsed(() => JSON.parse('{"jsonrpc":')) as string);
  assert.equal([broken.id, broken.error.code], [null, -32700]);
  assert.is(JSON.parse(d.dispatchParsed(() => [1]) as string).error.code, -32600);
  // Running out of memory while parsing is not the sender's bad JSON: it propagates to the engine.
  const oom = Object.assign(new Error('out of memory'), { name: 'InternalError' });
  assert.throws(() => d.dispatchParsed(() => { throw oom; }), /out of memory/);
});

Envelopes('should echo string and integer ids with their type', async () => {
  const d = createDispatcher(echoExtension(), fakeHost().host);
  assert.is((await call(d, 'morphir.ping', {}, 17)).id, 17);
  assert.is((await call(d, 'morphir.ping', {}, 'ping-17')).id, 'ping-17');
});

Envelopes('should refuse explicit null params for ping and exit sent as a request', async () => {
  const d = createDispatcher(echoExtension(), fakeHost().host);
  assert.is((await call(d, 'morphir.ping', null)).error?.code, -32602);
  assert.is((await call(d, 'morphir.exit', {})).error?.code, -32600);
});
Envelopes.run();

const Operations = suite('dispatcher :: operations');

async function ready() {
  const fake = fakeHost();
  const d = createDispatcher(echoExtension(), fake.host);
  await call(d, 'morphir.initialize', INIT, 0);
  return { d, ...fake };
}

Operations('should run generate and send progress before answering', async () => {
  const { d, sent } = await ready();
  const reply = await call(d, 'morphir.backend.generate', { ir: { formatVersion: 3 }, target: 'echo', options: {} }, 'gen-1');
  assert.is(reply.result.success, true);
  assert.equal(reply.result.diagnostics, []);
  assert.is(reply.result.artifacts[0].path, 'out/echo.txt');
  assert.equal(sent.map((m: any) => [m.method, m.params.requestId, m.params.kind]), [
    ['morphir.progress', 'gen-1', 'begin'],
    ['morphir.progress', 'gen-1', 'end'],
  ]);
});

Operations('should refuse a generate without target with -32602 and the zod issues', async () => {
  const { d } = await ready();
  const reply = await call(d, 'morphir.backend.generate', { ir: { formatVersion: 3 } });
  assert.is(reply.error?.code, -32602);
  assert.ok(reply.error?.data.issues.some((i: { path: string[] }) => i.path[0] === 'target'));
});

Operations('should answer an unknown target of a multi-target backend with a diagnostic', async () => {
  const { d } = await ready();
  const reply = await call(d, 'morphir.backend.generate', { ir: {}, target: 'nope' });
  assert.is(reply.result.success, false);
  assert.is(reply.result.diagnostics[0].code, 'MEP_UNKNOWN_TARGET');
});

Operations('should turn a handler throw into -32603 and keep serving', async () => {
  const { d } = await ready();
  const reply = await call(d, 'morphir.backend.generate', { ir: {}, target: 'echo', options: { fail: true } });
  assert.is(reply.error?.code, -32603);
  assert.is((await call(d, 'morphir.ping', {}, 9)).result.ok, true);
});

Operations('should refuse an invalid handler result with -32603', async () => {
  const { d } = await ready();
  const reply = await call(d, 'morphir.backend.generate', { ir: {}, target: 'echo', options: { bad: true } });
  assert.is(reply.error?.code, -32603);
});

Operations('should answer methods of capabilities it lacks with -32601', async () => {
  const { d } = await ready();
  assert.is((await call(d, 'morphir.frontend.compile', { sources: { documents: [] } })).error?.code, -32601);
  assert.is((await call(d, 'morphir.unknown', {})).error?.code, -32601);
});

Operations('should resolve secrets through the host and surface denials as -32012', async () => {
  const { d, sent, answerSecret } = await ready();
  const ok = await call(d, 'morphir.backend.generate', { ir: {}, target: 'echo', options: { secret: 'env("TOKEN")' } });
  assert.is(ok.result.artifacts[0].content, 's3cret');
  assert.equal((sent.at(-1) as any).params, { reference: 'env("TOKEN")' });
  answerSecret({ error: { code: -32012, message: 'denied' } });
  const denied = await call(d, 'morphir.backend.generate', { ir: {}, target: 'echo', options: { secret: 'env("OTHER")' } });
  assert.is(denied.error?.code, -32012);
});

Operations('should exit cleanly after shutdown and with 1 mid-session', async () => {
  const a = await ready();
  await a.d.dispatch(JSON.stringify({ jsonrpc: '2.0', method: 'morphir.exit' }));
  assert.equal(a.exits, [1]);
  const b = await ready();
  await call(b.d, 'morphir.shutdown', {});
  await b.d.dispatch(JSON.stringify({ jsonrpc: '2.0', method: 'morphir.exit' }));
  assert.equal(b.exits, [0]);
});

Operations('should reject bad definitions and artifact paths early', () => {
  const refused = (fn: () => unknown) => {
    try {
      fn();
    } catch (error) {
      return [(error as MepError).code, ((error as MepError).data as { problems: { path: string }[] }).problems.map((p) => p.path)];
    }
    return 'accepted';
  };
  assert.equal(refused(() => defineExtension({ info: { id: '', name: 'x', version: '1' }, validator: { irVersions: ['3'], validate: () => ({}) } })), ['ERR_USAGE', ['info.id']]);
  assert.equal(refused(() => defineExtension({ info: { id: 'x', name: 'x', version: '1' } })), ['ERR_USAGE', ['the definition']]);
  assert.throws(() => textArtifact('../escape.avsc', ''), /relative/);
  assert.throws(() => textArtifact('/abs', ''), /relative/);
  assert.ok(new MepError(-32012, 'x').isWire);
});
Operations('should answer synchronously when the handler is synchronous, and with a promise when it is not', async () => {
  const ext = defineExtension({
    info: { id: 'sync', name: 'Sync', version: '1.0.0' },
    backend: { targets: ['now', 'later'], irVersions: ['3'], generate: (p) => (p.target === 'now' ? { artifacts: [] } : Promise.resolve({ artifacts: [] })) },
  });
  const d = createDispatcher(ext, fakeHost().host);
  const message = (id: number, method: string, params: unknown) => JSON.stringify({ jsonrpc: '2.0', id, method, params });
  assert.type(d.dispatch(message(1, 'morphir.initialize', INIT)), 'string');
  assert.type(d.dispatch(message(2, 'morphir.ping', {})), 'string');
  const now = d.dispatch(message(3, 'morphir.backend.generate', { ir: {}, target: 'now' }));
  assert.type(now, 'string');
  assert.is(JSON.parse(now as string).result.success, true);
  const later = d.dispatch(message(4, 'morphir.backend.generate', { ir: {}, target: 'later' }));
  assert.instance(later, Promise);
  assert.is(JSON.parse((await later) as string).result.success, true);
  assert.type(d.dispatch(message(5, 'morphir.backend.generate', { ir: {} })), 'string');
});

const Emit = suite('dispatcher :: ctx.emit (streamed artifacts)');

function emitter() {
  return defineExtension({
    info: { id: 'test.emit', name: 'Emit', version: '1.0.0' },
    backend: {
      targets: ['t'],
      irVersions: ['3'],
      generate(params, ctx) {
        const { count = 2, fail = false, bad = false } = (params.options ?? {}) as { count?: number; fail?: boolean; bad?: boolean };
        if (bad) ctx.emit({ path: 'x', content: 'y' } as never);
        for (let i = 0; i < count; i++) ctx.emit(textArtifact(`e${i}.txt`, String(i)));
        return { success: !fail, artifacts: [textArtifact('own.txt', 'own')] };
      },
    },
  });
}

async function emitting(streaming: boolean) {
  const fake = fakeHost();
  const d = createDispatcher(emitter(), fake.host);
  await call(d, 'morphir.initialize', { ...INIT, capabilities: streaming ? { artifactStream: true } : {} }, 0);
  return { d, ...fake };
}

Emit('should send each emitted artifact as it is emitted to a host that announced artifactStream, and count them', async () => {
  const { d, sent } = await emitting(true);
  const reply = await call(d, 'morphir.backend.generate', { ir: {}, target: 't' }, 'g-1');
  assert.equal(sent.map((m: any) => [m.method, m.params.requestId, m.params.artifact.path]), [
    ['morphir.backend.artifact', 'g-1', 'e0.txt'],
    ['morphir.backend.artifact', 'g-1', 'e1.txt'],
  ]);
  assert.equal(reply.result.artifacts.map((a: any) => a.path), ['own.txt']);
  assert.is(reply.result.streamedArtifacts, 2);
});

Emit('should answer once, with the emitted artifacts first, to a host without artifactStream (MEP 0.1)', async () => {
  const { d, sent } = await emitting(false);
  const reply = await call(d, 'morphir.backend.generate', { ir: {}, target: 't' }, 'g-1');
  assert.equal(sent, []);
  assert.equal(reply.result.artifacts.map((a: any) => a.path), ['e0.txt', 'e1.txt', 'own.txt']);
  assert.is(reply.result.streamedArtifacts, undefined);
});

Emit('should keep the answer of a handler that never emits unchanged', async () => {
  const { d } = await emitting(true);
  const reply = await call(d, 'morphir.backend.generate', { ir: {}, target: 't', options: { count: 0 } });
  assert.equal(Object.keys(reply.result).sort(), ['artifacts', 'diagnostics', 'success']);
});

Emit('should put no kept artifact into a failed result', async () => {
  const { d } = await emitting(false);
  const reply = await call(d, 'morphir.backend.generate', { ir: {}, target: 't', options: { fail: true } });
  assert.is(reply.result.success, false);
  assert.equal(reply.result.artifacts.map((a: any) => a.path), ['own.txt']);
});

Emit('should keep the rest for the result once one could not be sent, in the order emitted', async () => {
  const fake = fakeHost();
  let refused = 0;
  const host = { ...fake.host, notify: (m: object) => (refused++ === 0 ? fake.host.notify(m) : false) };
  const d = createDispatcher(emitter(), host);
  await call(d, 'morphir.initialize', { ...INIT, capabilities: { artifactStream: true } }, 0);
  const reply = await call(d, 'morphir.backend.generate', { ir: {}, target: 't', options: { count: 3 } });
  assert.equal(fake.sent.map((m: any) => m.params.artifact.path), ['e0.txt']);
  assert.is(reply.result.streamedArtifacts, 1);
  assert.equal(reply.result.artifacts.map((a: any) => a.path), ['e1.txt', 'e2.txt', 'own.txt']);
});

Emit('should refuse an emit that is not an artifact with -32603', async () => {
  const { d, sent } = await emitting(true);
  const reply = await call(d, 'morphir.backend.generate', { ir: {}, target: 't', options: { bad: true } });
  assert.is(reply.error?.code, -32603);
  assert.equal(sent, []);
});

Operations.run();
Emit.run();

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { defineExtension, textArtifact } from '../../../guest-pdk/src/index.ts';
import { createInProcessTransport } from '../testing/in-process-transport.ts';
import { ErrorCode, LocalErrorCode, MepError, isMepError } from '../protocol/errors.ts';
import type { ClaimSet } from '../protocol/index.ts';
import { createMemoryTransportPair } from '../transport/memory.ts';
import type { JsonRpcMessage, Transport } from '../transport/types.ts';
import { readClaimSet } from './read-claims.ts';
import { createSession } from './session.ts';

const IR = { formatVersion: 3, distribution: ['Library', [], {}, { modules: [] }] };

function extension(overrides: { frontend?: boolean; version?: string } = {}) {
  return defineExtension({
    info: { id: 'test.backend', name: 'Test backend', version: overrides.version ?? '1.0.0' },
    backend: { targets: ['avro'], irVersions: ['3'], generate: (p) => ({ artifacts: [textArtifact('a.txt', p.target)] }) },
    ...(overrides.frontend
      ? { frontend: { languages: [{ id: 'elm', fileExtensions: ['.elm'] }], irVersions: ['3'], compile: () => ({ irVersion: '3', ir: {}, modules: [] }) } }
      : {}),
  });
}

/** Records what the host sends, to prove a refusal never reached the extension. */
function recording(inner: Transport): Transport & { sent: string[] } {
  const sent: string[] = [];
  return {
    sent,
    name: inner.name,
    send(m: JsonRpcMessage) {
      sent.push(String(m.method ?? 'response'));
      inner.send(m);
    },
    onMessage: (l) => inner.onMessage(l),
    onClose: (l) => inner.onClose(l),
    close: () => inner.close(),
  };
}

async function expectCode(promise: Promise<unknown>, code: unknown): Promise<MepError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(isMepError(error), `not a MepError: ${String(error)}`);
    assert.is((error as MepError).code, code, (error as Error).message);
    return error as MepError;
  }
  assert.unreachable(`expected error ${String(code)}, got a result`);
  throw new Error('unreachable');
}

const Lifecycle = suite('session :: lifecycle');

Lifecycle('should run initialize, initialized, operations, shutdown, exit in order', async () => {
  const transport = recording(createInProcessTransport(extension()));
  const session = createSession({ transport });
  const states: string[] = [session.state];
  session.onStateChange((s) => states.push(s));
  try {
    const init = await session.start();
    assert.is(init.extension.id, 'test.backend');
    const result = await session.generate({ ir: IR, target: 'avro', options: {} });
    assert.is(result.artifacts[0].content, 'avro');
    await session.shutdown();
  } finally {
    await session.close();
  }
  assert.equal(transport.sent, ['morphir.initialize', 'morphir.initialized', 'morphir.backend.generate', 'morphir.shutdown', 'morphir.exit']);
  assert.equal(states, ['starting', 'initializing', 'ready', 'stopping', 'stopped']);
});

Lifecycle('should refuse operations outside the ready state', async () => {
  const session = createSession({ transport: createInProcessTransport(extension()) });
  await expectCode(session.generate({ ir: IR, target: 'avro' }), LocalErrorCode.SessionState);
  await session.start();
  await session.close();
  await expectCode(session.ping(), LocalErrorCode.SessionState);
  await expectCode(session.start(), LocalErrorCode.SessionState);
});

Lifecycle('should fail with -32011 and both version lists when no protocol version is shared', async () => {
  const session = createSession({ transport: createInProcessTransport(extension()), protocolVersions: ['0.9'] });
  const error = await expectCode(session.start(), ErrorCode.ProtocolVersionMismatch);
  assert.equal(error.data, { hostVersions: ['0.9'], extensionVersions: ['0.1'] });
  assert.is(session.state, 'failed');
});

Lifecycle('should report an extension that dies before answering shutdown as an extension failure', async () => {
  const [host, ext] = createMemoryTransportPair();
  ext.onMessage((m) => {
    if (m.method === 'morphir.initialize') {
      ext.send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: '0.1', extension: { id: 'x', name: 'X', version: '1' }, capabilities: {} } });
    } else if (m.method === 'morphir.shutdown') {
      ext.fail(new MepError(LocalErrorCode.ExtensionCrashed, 'gone'));
    }
  });
  const session = createSession({ transport: host });
  await session.start();
  await expectCode(session.shutdown(), ErrorCode.ExtensionFailure);
  assert.is(session.state, 'failed');
});

Lifecycle('should fail the session and reject the pending call when the transport dies mid-request', async () => {
  const [host, ext] = createMemoryTransportPair();
  ext.onMessage((m) => {
    if (m.method === 'morphir.initialize') {
      ext.send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: '0.1', extension: { id: 'x', name: 'X', version: '1' }, capabilities: { backend: { targets: ['t'], irVersions: ['3'], generate: true } } } });
    } else if (m.method === 'morphir.backend.generate') {
      ext.fail(new MepError(LocalErrorCode.ExtensionCrashed, 'segfault'));
    }
  });
  const session = createSession({ transport: host });
  await session.start();
  // The memory pair closes the host end with ERR_TRANSPORT_CLOSED when the extension end dies.
  await expectCode(session.generate({ ir: IR, target: 't' }), LocalErrorCode.TransportClosed);
  assert.is(session.state, 'failed');
  await session.close();
});
Lifecycle.run();

const Refusals = suite('session :: refuse before dispatch');

async function readySession(ext = extension()) {
  const transport = recording(createInProcessTransport(ext));
  const session = createSession({ transport });
  await session.start();
  return { session, transport };
}

Refusals('should refuse a target the extension did not advertise, naming extension and capability', async () => {
  const { session, transport } = await readySession();
  const error = await expectCode(session.generate({ ir: IR, target: 'protobuf' }), ErrorCode.CapabilityUnavailable);
  assert.equal((error.data as any).capability, 'backend.targets');
  assert.equal((error.data as any).extension, 'test.backend');
  assert.ok(error.message.includes('test.backend') && error.message.includes('protobuf'));
  assert.not.ok(transport.sent.includes('morphir.backend.generate'));
  await session.close();
});

Refusals('should refuse an IR version the backend did not advertise', async () => {
  const { session, transport } = await readySession();
  const error = await expectCode(session.generate({ ir: { ...IR, formatVersion: '4.0.0' }, target: 'avro' }), ErrorCode.CapabilityUnavailable);
  assert.is((error.data as any).capability, 'backend.irVersions');
  assert.is((error.data as any).requested, '4');
  assert.not.ok(transport.sent.includes('morphir.backend.generate'));
  await session.close();
});

Refusals('should refuse compile to a backend-only extension', async () => {
  const { session } = await readySession();
  const error = await expectCode(session.compile({ languageId: 'elm', sources: { documents: [{ uri: 'file:///a.elm', languageId: 'elm', version: 1, text: '' }] }, package: { name: 'local/a' } } as any), ErrorCode.CapabilityUnavailable);
  assert.is((error.data as any).capability, 'frontend.compile');
  await session.close();
});

Refusals('should refuse a baseline, several documents, or another language to a plain frontend', async () => {
  const { session, transport } = await readySession(extension({ frontend: true }));
  const doc = (n: number) => ({ uri: `file:///w/M${n}.elm`, languageId: 'elm', version: 1, text: '' });
  const base = { languageId: 'elm', sources: { root: 'file:///w', documents: [doc(1)] }, package: { name: 'local/example' } };
  const cases: [unknown, string][] = [
    [{ ...base, baseline: { modules: [] } }, 'frontend.incremental'],
    [{ ...base, sources: { root: 'file:///w', documents: [doc(1), doc(2)] } }, 'frontend.multiDocument'],
    [{ ...base, languageId: 'gleam' }, 'frontend.languages'],
    [{ ...base, options: { irVersion: '5' } }, 'frontend.irVersions'],
  ];
  for (const [params, capability] of cases) {
    const error = await expectCode(session.compile(params as any), ErrorCode.CapabilityUnavailable);
    assert.is((error.data as any).capability, capability);
  }
  assert.not.ok(transport.sent.includes('morphir.frontend.compile'));
  const ok = await session.compile(base as any);
  assert.is(ok.success, true);
  await session.close();
});

Refusals('should refuse documents whose identities clash or leave the root, before dispatch', async () => {
  const { session, transport } = await readySession(extension({ frontend: true }));
  const doc = (uri: string) => ({ uri, languageId: 'elm', version: 1, text: '' });
  for (const uri of ['file:///elsewhere/A.elm', 'file:///w/../A.elm']) {
    const error = await expectCode(session.compile({ languageId: 'elm', sources: { root: 'file:///w', documents: [doc(uri)] }, package: { name: 'local/a' } } as any), ErrorCode.InvalidParams);
    assert.is((error.data as any).uri, uri);
  }
  assert.not.ok(transport.sent.includes('morphir.frontend.compile'));
  await session.close();
});

Refusals('should refuse input without a Morphir IR formatVersion as a usage error', async () => {
  const { session } = await readySession();
  await expectCode(session.generate({ ir: { nope: 1 }, target: 'avro' }), LocalErrorCode.Usage);
  await session.close();
});
Refusals.run();

const Claims = suite('session :: claims');

Claims('should refuse an initialize result that disagrees with the pinned claim set, naming the rule', async () => {
  const { claims } = await readClaimSet({ transport: createInProcessTransport(extension()) });
  const session = createSession({ transport: createInProcessTransport(extension({ version: '2.0.0' })), claims });
  const error = await expectCode(session.start(), LocalErrorCode.ClaimsMismatch);
  assert.is((error.data as any).rule, 1);
  assert.is(session.state, 'failed');
});

Claims('should agree with its own claim set', async () => {
  const { claims, source } = await readClaimSet({ transport: createInProcessTransport(extension()) });
  assert.is(source, 'describe');
  const session = createSession({ transport: createInProcessTransport(extension()), claims });
  await session.start();
  await session.close();
});

Claims('should refuse a host outside requires.host before sending anything, naming the range', async () => {
  const { claims } = await readClaimSet({ transport: createInProcessTransport(extension()) });
  const pinned: ClaimSet = { ...claims, requires: { host: ['>=9.0.0'] }, critical: ['requires.host'] };
  const transport = recording(createInProcessTransport(extension()));
  const error = await expectCode(createSession({ transport, claims: pinned }).start(), LocalErrorCode.HostVersion);
  assert.equal((error.data as any).range, ['>=9.0.0']);
  assert.equal(transport.sent, []);
});

function noDescribe(refusal: { code: number; message: string }) {
  const [host, ext] = createMemoryTransportPair();
  const seen: string[] = [];
  ext.onMessage((m) => {
    seen.push(String(m.method));
    const reply = (result: unknown) => ext.send({ jsonrpc: '2.0', id: m.id, result });
    if (m.method === 'morphir.extension.describe') ext.send({ jsonrpc: '2.0', id: m.id, error: refusal });
    else if (m.method === 'morphir.initialize') reply({ protocolVersion: '0.1', extension: { id: 'old', name: 'Old', version: '0.9.0' }, capabilities: { backend: { targets: ['t'], irVersions: ['3'], generate: true } } });
    else if (m.method === 'morphir.extension.capabilities') reply({ backend: { targets: ['t'], irVersions: ['3'], generate: true } });
    else if (m.method === 'morphir.shutdown') reply({});
  });
  return { host, seen };
}

Claims('should fall back to a session when describe is missing (-32601) or refused before initialize (-32014)', async () => {
  for (const code of [-32601, -32014]) {
    const { host, seen } = noDescribe({ code, message: 'no' });
    const { claims, source } = await readClaimSet({ transport: host });
    assert.is(source, 'session');
    assert.equal(claims.protocolVersions, ['0.1']);
    assert.equal(claims.extension.types, ['backend']);
    assert.is(claims.requires, undefined);
    assert.equal(seen, ['morphir.extension.describe', 'morphir.initialize', 'morphir.initialized', 'morphir.extension.capabilities', 'morphir.shutdown', 'morphir.exit']);
  }
});

Claims('should recognise an old "not initialized" refusal by its message but fall back on nothing else', async () => {
  const old = noDescribe({ code: -32002, message: 'Server not initialized' });
  assert.is((await readClaimSet({ transport: old.host })).source, 'session');
  const other = noDescribe({ code: -32603, message: 'internal error' });
  await expectCode(readClaimSet({ transport: other.host }), -32603);
  assert.equal(other.seen, ['morphir.extension.describe', 'morphir.exit']);
});
Claims.run();

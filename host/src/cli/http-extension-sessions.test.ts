import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { LocalErrorCode } from '../protocol/errors.ts';
import { findInstalled, type InstalledExtension } from '../registry/discover.ts';
import { installExtension } from '../registry/install.ts';
import { openTransport } from '../registry/launch.ts';
import { verifyInstalled } from '../registry/prepare.ts';
import { readClaimSet } from '../session/read-claims.ts';
import { registryPaths } from '../registry/paths.ts';
import { trustProjectConfig } from '../registry/trust.ts';
import { tempProject, type TempProject } from '../registry/test-support.ts';
import { ServeMethod } from '../serve/methods.ts';
import { postRpc } from '../serve/testing/http.ts';
import { createLineClient } from '../serve/testing/line-client.ts';
import { captureIo } from './io.ts';
import { main } from './main.ts';
import { startRemote, writeRemotePackage, type TestRemote } from './testing/remote-server.ts';
import { startServe } from './testing/serve-in-process.ts';

const TOKEN = 'remote-token-0123456789-abcdefghij';
const REFERENCE = 'env("ACME_REMOTE_TOKEN")';
const ir = { formatVersion: 3, distribution: ['Library', [['acme']], [], { modules: [] }] };

/**
 * One token-protected remote, installed once (approved, pinned at 1.0.0) in one project that
 * every case shares; each case resets the version it reports and what it recorded.
 */
const fixture: { t?: TempProject; remote?: TestRemote } = {};
const t = (): TempProject => fixture.t as TempProject;
const remote = (): TestRemote => fixture.remote as TestRemote;

async function run(argv: string[]): Promise<{ code: number; output: string }> {
  const io = captureIo(t().project);
  const code = await main(argv, io);
  return { code, output: [...io.stdout, ...io.stderr].join('\n') };
}

/** Every POST the remote got since the case began carried the token. */
function everyPostAuthorized(): void {
  assert.ok(remote().authorizations.length > 0, 'the remote was asked');
  assert.equal([...new Set(remote().authorizations)], [`Bearer ${TOKEN}`]);
}

const Sessions = suite('every command that opens a session to an installed, token-protected http extension');

Sessions.before(async () => {
  fixture.t = await tempProject();
  fixture.remote = await startRemote({ token: TOKEN });
  process.env.ACME_REMOTE_TOKEN = TOKEN;
  const paths = registryPaths({ cwd: t().project });
  await mkdir(join(t().project, '.mep'), { recursive: true });
  await writeFile(paths.project.config, JSON.stringify({ secrets: { 'acme.remote': [REFERENCE] } }));
  await trustProjectConfig(paths);
  await installExtension({ source: await writeRemotePackage(t().root, { url: remote().url, token: REFERENCE, permissions: { secrets: [REFERENCE] } }), paths });
  await writeFile(join(t().project, 'ir.json'), JSON.stringify(ir));
});

Sessions.before.each(() => {
  remote().state.version = '1.0.0';
  remote().authorizations.length = 0;
});

Sessions.after(async () => {
  delete process.env.ACME_REMOTE_TOKEN;
  await remote().close();
  await t().cleanup();
});

Sessions('mep conformance sends the token on every request and passes', async () => {
  const result = await run(['conformance', 'acme.remote', '--filter', 'initialize with a']);
  assert.is(result.code, 0, result.output);
  assert.match(result.output, /2 passed, 0 failed/);
  everyPostAuthorized();
  assert.not.match(result.output, TOKEN);
});

Sessions('mep call and mep describe send the token, and a server that echoes it never gets it printed', async () => {
  const ping = await run(['call', 'acme.remote', 'morphir.ping']);
  assert.is(ping.code, 0, ping.output);
  const describe = await run(['describe', 'acme.remote']);
  assert.is(describe.code, 0, describe.output);
  assert.match(describe.output, /acme\.remote/);
  const echoed = await run(['call', 'acme.remote', 'acme.echo-authorization']);
  assert.is.not(echoed.code, 0);
  assert.match(echoed.output, /not allowed for/);
  everyPostAuthorized();
  for (const output of [ping.output, describe.output, echoed.output]) assert.not.match(output, TOKEN);
});

Sessions('mep generate selects it by its claims (no --extension) and sends the token', async () => {
  const generated = await run(['generate', '--target', 'echo', '--input', 'ir.json', '--output', 'selected', '--json', '--verbose']);
  assert.is(generated.code, 0, generated.output);
  assert.match(generated.output, /selected acme\.remote/);
  assert.equal(JSON.parse(await readFile(join(t().project, 'selected/echo/remote.json'), 'utf8')), ir);
  everyPostAuthorized();
  assert.not.match(generated.output, TOKEN);
});

Sessions('mep describe prints the pinned claims without the token secret; a command that opens a session still needs it (ERR_REGISTRY)', async () => {
  delete process.env.ACME_REMOTE_TOKEN;
  try {
    const describe = await run(['describe', 'acme.remote']);
    assert.is(describe.code, 0, describe.output);
    assert.match(describe.output, /"echo"/);
    assert.is(remote().authorizations.length, 0, 'describe of pinned claims contacts no server');
    const ping = await run(['call', 'acme.remote', 'morphir.ping', '--json']);
    assert.is(ping.code, 3, ping.output);
    assert.match(ping.output, /ERR_REGISTRY/);
    assert.match(ping.output, /ACME_REMOTE_TOKEN/);
    assert.is(remote().authorizations.length, 0, 'nothing was sent without the token');
  } finally {
    process.env.ACME_REMOTE_TOKEN = TOKEN;
  }
});

Sessions('mep install of a server that echoes the token in an error never gets it printed', async () => {
  remote().state.echoOnDescribe = true;
  try {
    const source = await writeRemotePackage(t().root, { url: remote().url, token: REFERENCE, permissions: { secrets: [REFERENCE] } });
    const installed = await run(['install', source]);
    assert.is.not(installed.code, 0, installed.output);
    assert.match(installed.output, /not allowed for/);
    assert.not.match(installed.output, TOKEN);
    everyPostAuthorized();
  } finally {
    remote().state.echoOnDescribe = false;
  }
});

Sessions('mep call of the URL itself sends MEP_HTTP_TOKEN, and a server that echoes it never gets it printed', async () => {
  process.env.MEP_HTTP_TOKEN = TOKEN;
  try {
    const ping = await run(['call', remote().url, 'morphir.ping']);
    assert.is(ping.code, 0, ping.output);
    const echoed = await run(['call', remote().url, 'acme.echo-authorization']);
    assert.is.not(echoed.code, 0);
    assert.match(echoed.output, /not allowed for/);
    everyPostAuthorized();
    for (const output of [ping.output, echoed.output]) assert.not.match(output, TOKEN);
  } finally {
    delete process.env.MEP_HTTP_TOKEN;
  }
});

Sessions('mep conformance and mep call refuse a server that now reports another identity (ERR_REGISTRY), naming the pin', async () => {
  remote().state.version = '2.0.0';
  const conformance = await run(['conformance', 'acme.remote', '--filter', 'initialize with an integer', '--json']);
  assert.is.not(conformance.code, 0, conformance.output);
  assert.match(conformance.output, /pins acme\.remote 1\.0\.0/);
  const call = await run(['call', 'acme.remote', 'morphir.ping', '--json']);
  assert.is(call.code, 3, call.output);
  assert.match(call.output, /ERR_REGISTRY/);
  assert.match(call.output, /acme\.remote 2\.0\.0/);
  assert.match(call.output, /mep install/);
  everyPostAuthorized();
});

Sessions('a claim set read with describe alone (no initialize) from a server reporting another identity is refused too', async () => {
  remote().state.version = '2.0.0';
  const paths = registryPaths({ cwd: t().project });
  const spec = await verifyInstalled((await findInstalled(paths, 'acme.remote')) as InstalledExtension, { paths });
  const error = (await readClaimSet({ transport: await openTransport(spec) }).catch((e: unknown) => e)) as { code?: string; message?: string };
  assert.is(error.code, LocalErrorCode.Registry, String(error.message));
  assert.match(error.message ?? '', /pins acme\.remote 1\.0\.0/);
  assert.not.ok(remote().authorizations.length > 1, 'only describe was sent');
  everyPostAuthorized();
});

/** `mep serve --socket` in this process, a line client connected to it; stopped with server/shutdown. */
async function withSocketServe(fn: (request: (method: string, params: unknown) => Promise<Record<string, unknown>>) => Promise<void>): Promise<string> {
  const path = join(t().root, `serve-${Math.random().toString(36).slice(2)}.sock`);
  const serve = await startServe(['--socket', path], t().project);
  const socket = connect(path);
  const client = createLineClient((bytes) => socket.write(bytes));
  socket.on('data', (chunk) => client.push(chunk));
  let id = 0;
  try {
    await fn((method, params) => client.request(++id, method, params));
  } finally {
    await client.request(++id, ServeMethod.Shutdown, {});
    socket.destroy();
    assert.is(await serve.stop(), 0);
  }
  return serve.stderr();
}

Sessions('mep serve --socket proxying it sends the token, and refuses a changed identity with ERR_REGISTRY for that client', async () => {
  const stderr = await withSocketServe(async (request) => {
    remote().state.version = '2.0.0';
    const refused = await request(ServeMethod.Open, { extension: 'acme.remote' });
    const error = refused.error as { message: string; data?: { localCode?: string } };
    assert.is(error.data?.localCode, 'ERR_REGISTRY', JSON.stringify(refused));
    assert.match(error.message, /pins acme\.remote 1\.0\.0/);

    remote().state.version = '1.0.0';
    const opened = await request(ServeMethod.Open, { extension: 'acme.remote' });
    const sessionId = (opened.result as { sessionId: string }).sessionId;
    const generated = await request(ServeMethod.Call, { sessionId, method: 'morphir.backend.generate', params: { ir, target: 'echo', options: {} } });
    assert.is((generated.result as { success: boolean }).success, true, JSON.stringify(generated));
    const echoed = await request(ServeMethod.Call, { sessionId, method: 'acme.echo-authorization', params: {} });
    assert.ok(echoed.error, JSON.stringify(echoed));
  });
  everyPostAuthorized();
  assert.not.match(stderr, TOKEN);
});

Sessions('mep serve --http proxying it sends the token, and refuses a changed identity with ERR_REGISTRY for that call', async () => {
  const serve = await startServe(['--http', '127.0.0.1:0'], t().project);
  try {
    const route = `${serve.address}/extensions/acme.remote`;
    const generate = { jsonrpc: '2.0', id: 1, method: 'morphir.backend.generate', params: { ir, target: 'echo', options: {} } };
    const generated = await postRpc(route, generate);
    assert.is((generated.body.result as { success: boolean } | undefined)?.success, true, JSON.stringify(generated.body));

    // The server behind it changes after a call was served: the next call is refused, not served
    // on a session the pool kept from before.
    remote().state.version = '2.0.0';
    const refused = await postRpc(route, generate);
    assert.is(refused.status, 200);
    const error = refused.body.error as { message: string; data?: { localCode?: string } };
    assert.is(error?.data?.localCode, 'ERR_REGISTRY', JSON.stringify(refused.body));
    assert.match(error.message, /pins acme\.remote 1\.0\.0/);

    remote().state.version = '1.0.0';
    await postRpc(route, { jsonrpc: '2.0', id: 2, method: 'acme.echo-authorization', params: {} });
  } finally {
    assert.is(await serve.stop(), 0);
  }
  everyPostAuthorized();
  assert.not.match(serve.stderr(), TOKEN);
});

Sessions.run();

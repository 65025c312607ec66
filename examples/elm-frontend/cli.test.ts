import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cp, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { builtExample, REPO_ROOT } from '../testing/built.ts';
import { captureIo } from '../../host/src/cli/io.ts';
import { main } from '../../host/src/cli/main.ts';
import { createByteChannelPair } from '../../host/src/serve/byte-channel.ts';
import { createHostServer } from '../../host/src/serve/host-server.ts';
import { ServeMethod } from '../../host/src/serve/methods.ts';
import { createNodeOpener } from '../../host/src/serve/node-open.ts';
import { createNodeProjectCompiler } from '../../host/src/serve/node-project.ts';
import { createLineClient } from '../../host/src/serve/testing/line-client.ts';

const showcase = join(REPO_ROOT, 'fixtures/ir/showcase');
const committed = async () => JSON.parse(await readFile(join(showcase, 'morphir-ir.json'), 'utf8'));

/** A temporary copy of the showcase project (without its IR); removed afterwards. */
async function withShowcase(fn: (dir: string, root: string) => Promise<void>): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), 'mep-elm-cli-'));
  const dir = join(root, 'showcase');
  try {
    await cp(showcase, dir, { recursive: true });
    await rm(join(dir, 'morphir-ir.json'));
    await fn(dir, root);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

const Cli = suite('mep compile with the Elm frontend (process runtime)');

Cli('should compile a project folder in one request and write morphir-ir.json in it', () =>
  withShowcase(async (dir, root) => {
    const elm = await builtExample('elm-frontend', 'process');
    const io = captureIo(root);
    assert.is(await main(['compile', 'showcase', '--extension', elm], io), 0, io.stderr.join('\n'));
    assert.match(io.stdout.join('\n'), /^Compiled .*showcase \(elm\) with morphir-elm-frontend: 3 modules, IR 3, written to .*showcase\/morphir-ir\.json\.$/);
    assert.equal(JSON.parse(await readFile(join(dir, 'morphir-ir.json'), 'utf8')), await committed());
    const json = captureIo(root);
    assert.is(await main(['compile', 'showcase', '--extension', elm, '--output', 'elsewhere.json', '--json'], json), 0);
    const report = JSON.parse(json.stdout.join('\n'));
    assert.equal([report.success, report.project, report.modules, report.output, report.ir], [true, dir, ['Common', 'Internal', 'Orders'], join(root, 'elsewhere.json'), undefined]);
  }),
);

Cli('should print a syntax error at its file and line with a caret, and write nothing', () =>
  withShowcase(async (dir) => {
    const elm = await builtExample('elm-frontend', 'process');
    const orders = join(dir, 'src/Acme/Showcase/Orders.elm');
    const lines = (await readFile(orders, 'utf8')).split('\n');
    const at = lines.findIndex((l) => l.startsWith('defaultStatus ='));
    lines[at + 1] = '    Draft +';
    await writeFile(orders, lines.join('\n'));
    await writeFile(join(dir, 'morphir-ir.json'), 'earlier');
    const io = captureIo(dir);
    assert.is(await main(['compile', '.', '--extension', elm], io), 1);
    const err = io.stderr.join('\n');
    assert.match(err, /^error\[elm\.parse\]: Syntax error: /m);
    assert.match(err, /--> src\/Acme\/Showcase\/Orders\.elm:\d+:\d+$/m);
    assert.match(err, /\n\d+ \| .*\n +\| +\^/);
    assert.match(err, /failed \(morphir-elm-frontend\); nothing was written/);
    assert.is(await readFile(join(dir, 'morphir-ir.json'), 'utf8'), 'earlier');
    assert.equal((await readdir(dir)).filter((n) => n.endsWith('.tmp')), []);
  }),
);

Cli('should compile several files in one request in local/example', () =>
  withShowcase(async (dir) => {
    const elm = await builtExample('elm-frontend', 'process');
    await writeFile(join(dir, 'Util.elm'), 'module Util exposing (one)\n\n\none : Int\none =\n    1\n');
    await writeFile(join(dir, 'Main.elm'), 'module Main exposing (two)\n\nimport Util\n\n\ntwo : Int\ntwo =\n    Util.one + 1\n');
    const io = captureIo(dir);
    assert.is(await main(['compile', 'Main.elm', 'Util.elm', '--extension', elm, '--output', 'ir.json', '--json'], io), 0, io.stderr.join('\n'));
    const report = JSON.parse(io.stdout.join('\n'));
    assert.equal(report.modules, ['Main', 'Util']);
    const ir = JSON.parse(await readFile(join(dir, 'ir.json'), 'utf8'));
    assert.equal(ir.distribution[1], [['local'], ['example']]);
    assert.is(await main(['compile', 'src', 'Main.elm', '--extension', elm], captureIo(dir)), 2);
    assert.is(await main(['compile', 'Nope.elm', '--extension', elm], captureIo(dir)), 2);
  }),
);

Cli('should refuse a folder without morphir.json before starting the frontend', () =>
  withShowcase(async (dir) => {
    await rm(join(dir, 'morphir.json'));
    const io = captureIo(dir);
    assert.is(await main(['compile', '.', '--extension', join(dir, 'no-such-extension.mjs'), '--json'], io), 2);
    assert.is(JSON.parse(io.stdout.join('\n')).error.code, 'ERR_USAGE');
  }),
);

const Serve = suite('mep serve: project/compile');

Serve('should compile a project folder in a session, writing its IR or returning it', () =>
  withShowcase(async (dir) => {
    const elm = await builtExample('elm-frontend', 'process');
    const server = createHostServer({ open: createNodeOpener(), compileProject: createNodeProjectCompiler(dir) });
    const [serverSide, clientSide] = createByteChannelPair();
    const connection = server.connect(serverSide);
    const client = createLineClient((bytes) => clientSide.write(bytes));
    clientSide.onData((chunk) => client.push(chunk));
    try {
      const info = await client.request('info', ServeMethod.Info, {});
      assert.ok((info.result as { methods: string[] }).methods.includes(ServeMethod.ProjectCompile));
      const opened = await client.request('open', ServeMethod.Open, { extension: elm });
      const sessionId = (opened.result as { sessionId: string }).sessionId;
      const written = await client.request('c1', ServeMethod.ProjectCompile, { sessionId, projectDir: '.' });
      const reply = written.result as { success: boolean; output: string; modules: string[]; ir?: unknown };
      assert.equal([reply.success, reply.output, reply.modules, reply.ir], [true, join(dir, 'morphir-ir.json'), ['Common', 'Internal', 'Orders'], undefined]);
      assert.equal(JSON.parse(await readFile(reply.output, 'utf8')), await committed());
      const returned = await client.request('c2', ServeMethod.ProjectCompile, { sessionId, projectDir: dir, output: false, options: { irVersion: '4' } });
      const v4 = returned.result as { output: null; irVersion: string; ir: { formatVersion: string } };
      assert.equal([v4.output, v4.irVersion, v4.ir.formatVersion], [null, '4', '4.0.0']);
      assert.ok(client.seen.some((m) => m.method === ServeMethod.Progress && (m.params as { requestId?: unknown }).requestId === 'c1'), 'progress is tagged with the client request');
      const missing = await client.request('c3', ServeMethod.ProjectCompile, { sessionId, projectDir: join(dir, 'src') });
      assert.is((missing.error as { data: { localCode: string } }).data.localCode, 'ERR_USAGE');
      const unknown = await client.request('c4', ServeMethod.ProjectCompile, { sessionId: 'nope', projectDir: dir });
      assert.is((unknown.error as { code: number }).code, -32602);
    } finally {
      clientSide.close();
      await connection.closed;
      await server.close();
    }
  }),
);

Cli.run();
Serve.run();

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync } from 'node:fs';
import { chmod, copyFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { backend, configurableFixture, withProject, writePackage } from '../../registry/test-support.ts';
import { captureIo } from '../io.ts';
import { main } from '../main.ts';
import { createNodeOpener } from '../../serve/node-open.ts';
import { resolveExtensionArgument } from './extension-argument.ts';

const Argument = suite('extension argument :: an installed id or a path');

/** An executable in `dir` named `name` that leaves `ran` beside it when it runs. */
async function trap(dir: string, name: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, '#!/bin/sh\ntouch "$(dirname "$0")/ran"\nexit 1\n');
  await chmod(path, 0o755);
  return join(dir, 'ran');
}

const errorOf = (io: ReturnType<typeof captureIo>): { code: string; data: Record<string, unknown> } => JSON.parse(io.stdout.join('\n')).error;

Argument('should run the installed, pinned extension for a plain id, never a file of that name in the working directory :: hostile', () =>
  withProject(async (t) => {
    const pkg = await writePackage(join(t.root, 'pkg'), { id: 'acme.avro', capabilities: backend('avro') });
    assert.is(await main(['install', pkg, '--probe'], captureIo(t.project)), 0);
    const ran = await trap(t.project, 'acme.avro');
    const io = captureIo(t.project);
    assert.is(await main(['describe', 'acme.avro', '--json'], io), 0, io.stderr.join('\n'));
    assert.equal(JSON.parse(io.stdout.join('\n')).capabilities.backend.targets, ['avro']);
    assert.not.ok(existsSync(ran), 'the file in the working directory did not run');
  }),
);

Argument('should refuse a plain name nobody installed, even when a file of that name is here, and run it as ./name :: hostile', () =>
  withProject(async (t) => {
    const ran = await trap(t.project, 'acme.avro');
    const io = captureIo(t.project);
    assert.is(await main(['describe', 'acme.avro', '--json'], io), 2);
    const error = errorOf(io);
    assert.equal([error.code, error.data.reason, error.data.extension], ['ERR_USAGE', 'not-installed', 'acme.avro']);
    assert.is(error.data.file, './acme.avro', 'the error names how to run the file');
    assert.not.ok(existsSync(ran));

    await copyFile(configurableFixture, join(t.project, 'ext.mjs'));
    const plain = captureIo(t.project);
    assert.is(await main(['describe', 'ext.mjs', '--json'], plain), 2);
    assert.is(errorOf(plain).data.reason, 'not-installed');
    const asPath = captureIo(t.project);
    assert.is(await main(['call', './ext.mjs', 'ping'], asPath), 0, asPath.stderr.join('\n'));
  }),
);

Argument('should take a name that is no plain id (a device name, an object key) for no path either :: hostile', () =>
  withProject(async (t) => {
    for (const name of ['my ext', 'nul', 'con.avro', 'constructor']) {
      const ran = await trap(t.project, name);
      const io = captureIo(t.project);
      assert.is(await main(['describe', name, '--json'], io), 2, name);
      assert.equal([errorOf(io).code, errorOf(io).data.reason], ['ERR_USAGE', 'not-installed'], name);
      assert.not.ok(existsSync(ran), name);
    }
  }),
);

Argument("should mean the same in mep serve's session/open: the install for a name, never a file here :: hostile", () =>
  withProject(async (t) => {
    const io = captureIo(t.project);
    const open = createNodeOpener({ resolve: (reference) => resolveExtensionArgument(reference, io) });
    const context = { log: () => undefined, signal: new AbortController().signal };
    const ran = await trap(t.project, 'acme.avro');
    const refused = await open({ extension: 'acme.avro' }, context).then(() => undefined, (error: { code?: unknown; data?: { reason?: unknown } }) => [error.code, error.data?.reason]);
    assert.equal(refused, ['ERR_USAGE', 'not-installed']);
    const pkg = await writePackage(join(t.root, 'pkg'), { id: 'acme.avro', capabilities: backend('avro') });
    assert.is(await main(['install', pkg, '--probe'], captureIo(t.project)), 0);
    const opened = await open({ extension: 'acme.avro' }, context);
    try {
      assert.equal(opened.claims?.extension.id, 'acme.avro');
    } finally {
      await opened.transport.close();
    }
    assert.not.ok(existsSync(ran));
  }),
);

Argument.run();

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { backend, writePackage, withProject } from '../../registry/test-support.ts';
import { captureIo } from '../io.ts';
import { main } from '../main.ts';


const Cli = suite('cli :: install, list, describe, remove');

Cli('should install, list and remove in human form', () =>
  withProject(async (t) => {
    const pkg = await writePackage(join(t.root, 'pkg'), { id: 'acme.echo', capabilities: backend('echo', 'json') });
    const io = captureIo(t.project);
    assert.is(await main(['install', pkg, '--probe'], io), 0, io.stderr.join('\n'));
    assert.match(io.stdout[0] as string, /^Installed acme\.echo 1\.0\.0 \(process\)/);

    const list = captureIo(t.project);
    assert.is(await main(['list'], list), 0);
    assert.match(list.stdout.join('\n'), /acme\.echo 1\.0\.0 {2}process {2}project {2}verified/);
    assert.match(list.stdout.join('\n'), /targets echo, json; IR 3/);

    const removed = captureIo(t.project);
    assert.is(await main(['remove', 'acme.echo'], removed), 0);
    const empty = captureIo(t.project);
    assert.is(await main(['list'], empty), 0);
    assert.match(empty.stdout[0] as string, /No extensions installed/);
  }),
);

Cli('should print install, list, describe and remove results as JSON', () =>
  withProject(async (t) => {
    const pkg = await writePackage(join(t.root, 'pkg'), { id: 'acme.echo', capabilities: backend('echo') });
    const io = captureIo(t.project);
    assert.is(await main(['install', pkg, '--user', '--json'], io), 0);
    const installed = JSON.parse(io.stdout.join('\n'));
    assert.equal([installed.success, installed.id, installed.scope, installed.entry.claims], [true, 'acme.echo', 'user', undefined]);

    const list = captureIo(t.project);
    assert.is(await main(['list', '--json'], list), 0);
    const [row] = JSON.parse(list.stdout.join('\n')).extensions;
    assert.equal([row.id, row.scope, row.verified, row.capabilities, row.source], ['acme.echo', 'user', true, null, null]);

    const described = captureIo(t.project);
    assert.is(await main(['describe', 'acme.echo'], described), 0, described.stderr.join('\n'));
    assert.equal(JSON.parse(described.stdout.join('\n')).capabilities.backend.targets, ['echo']);
    const relisted = captureIo(t.project);
    await main(['list', '--json'], relisted);
    assert.equal(JSON.parse(relisted.stdout.join('\n')).extensions[0].capabilities.targets, ['echo']);

    const removed = captureIo(t.project);
    assert.is(await main(['remove', 'acme.echo', '--json'], removed), 0);
    assert.equal(JSON.parse(removed.stdout.join('\n')).scope, 'user');
  }),
);

Cli('should report install and remove failures the same way in human and JSON form', () =>
  withProject(async (t) => {
    const pkg = await writePackage(join(t.root, 'pkg'), { id: 'acme.echo', capabilities: backend('echo') });
    const human = captureIo(t.project);
    assert.is(await main(['install', `${join(t.root, 'none.zip')}`], human), 2);
    assert.match(human.stderr.join('\n'), /Cannot read the archive/);
    const json = captureIo(t.project);
    assert.is(await main(['install', `${join(t.root, 'pkg.tgz')}#sha256=xyz`, '--json'], json), 2);
    assert.is(JSON.parse(json.stdout.join('\n')).error.code, 'ERR_USAGE');

    const manifest = join(pkg, 'extension.json');
    await writeFile(manifest, (await readFile(manifest, 'utf8')).replace('"runtime": "process"', '"runtime": "jvm"'));
    const invalid = captureIo(t.project);
    assert.is(await main(['install', pkg, '--json'], invalid), 3);
    const error = JSON.parse(invalid.stdout.join('\n')).error;
    assert.is(error.code, 'ERR_REGISTRY');
    assert.equal(error.data.issues[0].path, ['runtime']);

    const remove = captureIo(t.project);
    assert.is(await main(['remove', 'nobody', '--json'], remove), 3);
    assert.is(JSON.parse(remove.stdout.join('\n')).error.data.reason, 'not-installed');
    assert.match(remove.stderr.join('\n'), /not installed/);
  }),
);

Cli('should flag a tampered artifact in list (exit 1) and refuse to describe it (exit 3)', () =>
  withProject(async (t) => {
    const pkg = await writePackage(join(t.root, 'pkg'), { id: 'acme.echo', capabilities: backend('echo') });
    assert.is(await main(['install', pkg, '--probe'], captureIo(t.project)), 0);
    await writeFile(join(t.project, '.mep/extensions/acme.echo/bin/ext.mjs'), 'process.exit(0)');
    const list = captureIo(t.project);
    assert.is(await main(['list', '--json'], list), 1);
    assert.is(JSON.parse(list.stdout.join('\n')).extensions[0].verified, false);
    const described = captureIo(t.project);
    assert.is(await main(['describe', 'acme.echo', '--json'], described), 3);
    assert.is(JSON.parse(described.stdout.join('\n')).error.data.reason, 'hash-mismatch');
  }),
);

Cli.run();

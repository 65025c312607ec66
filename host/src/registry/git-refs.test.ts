/**
 * Red team (issue 31, round 14): a git source's refs. A clone takes every branch and tag the
 * server advertises and writes their names into `.git/packed-refs`, and the clone's budget
 * watched `.git/objects` alone: a repository of one small commit with 100,000 tags of 900
 * characters (52 KB of objects) put 96 MB of refs on disk under `--max-unpacked 4MiB`, and git
 * held 544 MB to read them (26 s, load average 5); served over HTTP with `Content-Encoding: gzip`,
 * which git accepts, the same refs were 450 KB on the wire. The whole clone is now counted.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { appendFile, mkdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { LocalErrorCode } from '../protocol/errors.ts';
import { archiveLimitsOf } from './archive/budget.ts';
import { gitDataBytes } from './git-budget.ts';
import { installExtension } from './install.ts';
import { addressSpaceTool } from './launch-limits.ts';
import { registryPaths } from './paths.ts';
import { withProject } from './test-support.ts';

const exec = promisify(execFile);

/** A bare repository of one package commit on `main` and `tags` tags of 900-character names, all on it. */
async function refFlood(root: string, tags: number): Promise<string> {
  const work = join(root, 'work');
  const g = (...args: string[]) => exec('git', ['-C', work, '-c', 'user.name=t', '-c', 'user.email=t@t', ...args]);
  await exec('git', ['init', '--quiet', '--initial-branch=main', work]);
  await mkdir(join(work, 'bin'));
  await writeFile(join(work, 'bin/x.js'), 'process.exit(0)\n');
  await writeFile(join(work, 'extension.json'), JSON.stringify({ id: 'acme.refs', name: 'Refs', version: '1.0.0', runtime: 'process', entry: 'bin/x.js' }));
  await g('add', '.');
  await g('commit', '--quiet', '-m', 'package');
  const repo = join(root, 'refs.git');
  await exec('git', ['clone', '--quiet', '--bare', work, repo]);
  await exec('git', ['-C', repo, 'pack-refs', '--all']);
  const commit = (await exec('git', ['-C', repo, 'rev-parse', 'main'])).stdout.trim();
  const name = 't'.repeat(900);
  await appendFile(join(repo, 'packed-refs'), Array.from({ length: tags }, (_, i) => `${commit} refs/tags/${name}${String(i).padStart(7, '0')}\n`).join(''));
  return pathToFileURL(repo).href;
}

const Refs = suite('registry :: a git source\'s refs count against --max-unpacked');

Refs('should stop a clone whose refs take more than --max-unpacked, though its objects are small :: refs', () =>
  withProject(async (t) => {
    // 8,000 tags of 900 characters: 7.3 MB of refs over 2 KB of objects.
    const url = await refFlood(t.root, 8_000);
    const paths = registryPaths({ cwd: t.project });
    const error = await installExtension({ source: url, paths, archiveLimits: { maxBytes: 2 << 20 } }).catch((e) => e);
    assert.instance(error, Error, 'the install went through');
    assert.is(error.code, LocalErrorCode.Limit, error.message);
    assert.equal([error.data?.budget, error.data?.option], ['bytes', '--max-unpacked']);
    assert.match(error.message, /repository .* downloads more than 2 MiB/);
    assert.not.ok(await stat(join(t.project, '.mep/extensions/acme.refs')).catch(() => undefined), 'nothing installed');
    // Within the budget the same repository installs.
    assert.is((await installExtension({ source: url, paths, archiveLimits: { maxBytes: 16 << 20 } })).id, 'acme.refs');
  }),
);

Refs("should stop git past the memory it may take (gitDataBytes) when a server's refs would take more, before they are written :: memory", () =>
  withProject(async (t) => {
    if (addressSpaceTool() === null) return; // git runs uncapped where there is no prlimit
    const limits = { maxBytes: 64 << 20 };
    assert.is(gitDataBytes(archiveLimitsOf(limits)), 256 << 20);
    // 60,000 tags of 900 characters: 55 MB of refs, under the byte budget, which git reads in about 300 MB.
    const url = await refFlood(t.root, 60_000);
    const error = await installExtension({ source: url, paths: registryPaths({ cwd: t.project }), archiveLimits: limits }).catch((e) => e);
    assert.instance(error, Error, 'the install went through');
    assert.is(error.code, LocalErrorCode.Limit, error.message);
    assert.equal([error.data?.limit, error.data?.limitBytes, error.data?.option], ['gitDataBytes', 256 << 20, '--max-unpacked']);
    assert.match(error.message, /git ran out of the 256 MiB of memory/);
    assert.not.ok(await stat(join(t.project, '.mep/extensions/acme.refs')).catch(() => undefined), 'nothing installed');
  }),
);

Refs.run();

/**
 * A git source is held to the install's budgets before anything is checked out. A repository
 * is a graph: a tree may name one blob or one subtree many times, so a few kilobytes of objects
 * can check out to millions of files or gigabytes ("git bomb"). Before this bound, `mep install
 * file:///…/bomb.git --max-entries 100` of a 212 KB repository (12 objects, 10^6 files) had
 * written 305,910 files in 40 s when it was stopped.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { LONG_TESTS } from '../../../fixtures/testing/tier.ts';
import { LocalErrorCode } from '../protocol/errors.ts';
import { installExtension } from './install.ts';
import { registryPaths } from './paths.ts';
import { withProject } from './test-support.ts';

const exec = promisify(execFile);

/** Runs git in the bare repository `repo`, feeding `input` on stdin; returns its trimmed stdout. */
function gitIn(repo: string, args: string[], input?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile('git', ['-C', repo, ...args], { maxBuffer: 1 << 20 }, (error, stdout) => (error ? reject(error) : resolve(stdout.trim())));
    // Only hash-object and mktree read their stdin; the others may exit before it is written (EPIPE).
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(input ?? '');
  });
}

/**
 * A bare repository at `repo` whose one commit holds a valid process package (`extension.json`,
 * `bin/x.js`) and `bomb/`: `fanout` names of one subtree at each of `depth` levels, over a
 * bottom tree of `fanout` names of one blob of `blobBytes` zeros. It checks out to
 * fanout^(depth+1) files of blobBytes each, from depth + 4 objects.
 */
async function gitBomb(repo: string, shape: { fanout: number; depth: number; blobBytes: number }): Promise<string> {
  await exec('git', ['init', '--quiet', '--bare', repo]);
  const blob = (text: string | Buffer) => gitIn(repo, ['hash-object', '-w', '--stdin'], text.toString());
  const tree = (lines: string[]) => gitIn(repo, ['mktree'], lines.map((l) => `${l}\n`).join(''));
  const names = Array.from({ length: shape.fanout }, (_, i) => i);
  const leaf = await blob('\0'.repeat(shape.blobBytes));
  let level = await tree(names.map((i) => `100644 blob ${leaf}\tf${i}`));
  for (let d = 0; d < shape.depth; d++) {
    const sub = level;
    level = await tree(names.map((i) => `040000 tree ${sub}\td${i}`));
  }
  const manifest = await blob(JSON.stringify({ id: 'acme.bomb', name: 'Bomb', version: '1.0.0', runtime: 'process', entry: 'bin/x.js' }));
  const bin = await tree([`100644 blob ${await blob('process.exit(0)\n')}\tx.js`]);
  const root = await tree([`100644 blob ${manifest}\textension.json`, `040000 tree ${bin}\tbin`, `040000 tree ${level}\tbomb`]);
  const commit = await gitIn(repo, ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit-tree', root, '-m', 'bomb']);
  await gitIn(repo, ['update-ref', 'refs/heads/main', commit]);
  await gitIn(repo, ['symbolic-ref', 'HEAD', 'refs/heads/main']);
  return pathToFileURL(repo).href;
}

const Bomb = suite('registry :: a git source checks out within the install budgets');

Bomb('should refuse a repository whose tree names more files than --max-entries, before checking anything out', () =>
  withProject(async (t) => {
    // 10 × 10 × 10 = 1,000 files (and 111 folders) from 8 objects.
    const url = await gitBomb(join(t.root, 'bomb.git'), { fanout: 10, depth: 2, blobBytes: 1 });
    const paths = registryPaths({ cwd: t.project });
    const error = await installExtension({ source: url, paths, archiveLimits: { maxEntries: 100 } }).catch((e) => e);
    assert.instance(error, Error, 'the install went through');
    assert.is(error.code, LocalErrorCode.Limit, error.message);
    assert.is(error.data?.budget, 'entries');
    assert.is(error.data?.option, '--max-entries');
    assert.match(error.message, /--max-entries 200/);
    assert.not.ok(await stat(join(t.project, '.mep/extensions/acme.bomb')).catch(() => undefined), 'nothing installed');
    // Within the budget the same repository installs.
    const ok = await installExtension({ source: url, paths, archiveLimits: { maxEntries: 2000 } });
    assert.is(ok.id, 'acme.bomb');
  }),
);

Bomb('should refuse a repository whose tree checks out to more bytes than --max-unpacked, counting each name of one blob', () =>
  withProject(async (t) => {
    // One blob of 1 MiB zeros (about 1 KB stored), named 8 times: 8 MiB on disk.
    const url = await gitBomb(join(t.root, 'bomb.git'), { fanout: 8, depth: 0, blobBytes: 1 << 20 });
    const error = await installExtension({ source: url, paths: registryPaths({ cwd: t.project }), archiveLimits: { maxBytes: 4 << 20 } }).catch((e) => e);
    assert.instance(error, Error, 'the install went through');
    assert.is(error.code, LocalErrorCode.Limit, error.message);
    assert.is(error.data?.budget, 'bytes');
    assert.is(error.data?.option, '--max-unpacked');
    assert.match(error.message, /--max-unpacked 8MiB/);
  }),
);

Bomb('should stop a clone whose history takes more than --max-unpacked, though the commit installed is small', () =>
  withProject(async (t) => {
    // The first commit holds 12 MiB that does not compress; the second removes it.
    const work = join(t.root, 'work');
    const g = (...args: string[]) => exec('git', ['-C', work, '-c', 'user.name=t', '-c', 'user.email=t@t', ...args]);
    await exec('git', ['init', '--quiet', work]);
    await writeFile(join(work, 'big.bin'), randomBytes(12 << 20));
    await g('add', '.');
    await g('commit', '--quiet', '-m', 'big');
    await g('rm', '--quiet', 'big.bin');
    await mkdir(join(work, 'bin'));
    await writeFile(join(work, 'bin/x.js'), 'process.exit(0)\n');
    await writeFile(join(work, 'extension.json'), JSON.stringify({ id: 'acme.history', name: 'History', version: '1.0.0', runtime: 'process', entry: 'bin/x.js' }));
    await g('add', '.');
    await g('commit', '--quiet', '-m', 'package');
    const repo = join(t.root, 'history.git');
    await exec('git', ['clone', '--quiet', '--bare', work, repo]);
    const paths = registryPaths({ cwd: t.project });
    // A plain path too: git's local clone would copy or link the objects without its transport.
    for (const source of [pathToFileURL(repo).href, repo]) {
      const error = await installExtension({ source, paths, archiveLimits: { maxBytes: 4 << 20 } }).catch((e) => e);
      assert.instance(error, Error, `${source}: the install went through`);
      assert.is(error.code, LocalErrorCode.Limit, error.message);
      assert.is(error.data?.budget, 'bytes');
      assert.is(error.data?.option, '--max-unpacked');
      assert.match(error.message, /repository .* downloads more than 4 MiB/);
    }
    assert.is((await installExtension({ source: repo, paths, archiveLimits: { maxBytes: 16 << 20 } })).id, 'acme.history');
  }),
);

Bomb('should stop a git server that never answers at the fetch deadline (maxFetchMs), and refuse a deadline no timer holds', () =>
  withProject(async (t) => {
    const server = createServer(() => undefined); // takes git's request, never answers
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const paths = registryPaths({ cwd: t.project });
      const error = await installExtension({ source: `http://127.0.0.1:${port}/stall.git`, paths, archiveLimits: { maxFetchMs: 600 } }).catch((e) => e);
      assert.instance(error, Error, 'still waiting');
      assert.equal([error.code, error.data?.limit, error.data?.option], [LocalErrorCode.Timeout, 'maxFetchMs', '--fetch-timeout'], error.message);
      const overflow = await installExtension({ source: `http://127.0.0.1:${port}/stall.git`, paths, archiveLimits: { maxFetchMs: 2 ** 31 } }).catch((e) => e);
      assert.is(overflow.code, LocalErrorCode.Usage, overflow.message);
      assert.match(overflow.message, /at most 2147483647 ms/);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  }),
);

Bomb("should check out the blobs as they are, through none of the user's filters a repository's .gitattributes selects", () =>
  withProject(async (t) => {
    // The user's git configuration defines a smudge filter (as `git lfs install` defines
    // filter.lfs.*, whose smudge downloads what a pointer file names, from a URL the repository's
    // .lfsconfig gives): a repository selecting it made the checkout write what the filter
    // wrote, not the blobs the budgets counted. Here the filter writes 8 MiB and leaves a mark.
    const mark = join(t.root, 'filter-ran');
    const work = join(t.root, 'work');
    const g = (...args: string[]) => exec('git', ['-C', work, '-c', 'user.name=t', '-c', 'user.email=t@t', ...args]);
    await exec('git', ['init', '--quiet', work]);
    await mkdir(join(work, 'bin'));
    await writeFile(join(work, 'bin/x.js'), 'process.exit(0)\n');
    await writeFile(join(work, 'extension.json'), JSON.stringify({ id: 'acme.filtered', name: 'Filtered', version: '1.0.0', runtime: 'process', entry: 'bin/x.js' }));
    await writeFile(join(work, '.gitattributes'), '* filter=amp\n');
    await g('add', '.');
    await g('commit', '--quiet', '-m', 'package');
    const saved = { ...process.env };
    Object.assign(process.env, {
      GIT_CONFIG_COUNT: '1',
      GIT_CONFIG_KEY_0: 'filter.amp.smudge',
      GIT_CONFIG_VALUE_0: `touch '${mark}'; head -c 8388608 /dev/zero`,
    });
    try {
      const result = await installExtension({ source: pathToFileURL(work).href, paths: registryPaths({ cwd: t.project }), archiveLimits: { maxBytes: 4 << 20 } });
      assert.is(await readFile(join(result.dir, 'bin/x.js'), 'utf8'), 'process.exit(0)\n');
      assert.not.ok(await stat(mark).catch(() => undefined), "the user's filter ran on the repository's files");
    } finally {
      for (const key of ['GIT_CONFIG_COUNT', 'GIT_CONFIG_KEY_0', 'GIT_CONFIG_VALUE_0']) {
        if (saved[key] === undefined) delete process.env[key];
        else process.env[key] = saved[key];
      }
    }
  }),
);

// Under `npm run test:long`: a regression here would check out 10^9 files.
if (LONG_TESTS) {
  Bomb('should stop reading a tree of 10^9 files at the default entry budget, with nothing checked out', () =>
    withProject(async (t) => {
      // 10^9 files from 13 objects: before the bound, git checked them out until the disk was full.
      const url = await gitBomb(join(t.root, 'bomb.git'), { fanout: 10, depth: 8, blobBytes: 1 });
      const error = await installExtension({ source: url, paths: registryPaths({ cwd: t.project }) }).catch((e) => e);
      assert.is(error.code, LocalErrorCode.Limit, error.message);
      assert.is(error.data?.budget, 'entries');
      assert.is(error.data?.limit, 10_000);
    }),
  );
}

Bomb.run();

/**
 * Red team (issue 31): the output's file system fills up while `mep generate` writes, or the
 * scratch folder ($TMPDIR) while `mep install` fetches and stages. Run in a
 * user and mount namespace of its own with a 1 MiB tmpfs as the output's file system (where
 * the system allows one; elsewhere the test says so and passes).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LocalErrorCode } from '../../protocol/errors.ts';
import { backend, makeTarGz, packageEntries, writePackage } from '../../registry/test-support.ts';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const DiskFull = suite('cli :: mep generate and mep install onto a full disk');

/** `s` quoted for sh. */
const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** What a script run in a namespace printed: its `key=value` lines, the rest parsed as JSON (mep's `--json`). */
interface NamespaceRun {
  value(key: string): string | undefined;
  json: { error?: { code?: unknown; message: string; data?: Record<string, unknown> } };
  stderr: string;
}

/**
 * Runs `script` (sh) in a user and mount namespace, its lines `<key>=…` for each of `keys` kept
 * apart from mep's JSON; undefined (and a note) where namespaces are not allowed.
 */
function inNamespace(script: string, keys: string[]): NamespaceRun | undefined {
  const probe = spawnSync('unshare', ['--user', '--map-root-user', '--mount', 'sh', '-c', 'mount -t tmpfs -o size=64k tmpfs /mnt 2>/dev/null && echo ok'], { encoding: 'utf8' });
  if (probe.stdout?.trim() !== 'ok') {
    console.log('  (skipped: no user and mount namespaces here to mount a small tmpfs)');
    return undefined;
  }
  const run = spawnSync('unshare', ['--user', '--map-root-user', '--mount', 'sh', '-c', script], { encoding: 'utf8', cwd: root, timeout: 120_000 });
  const lines = run.stdout.split('\n');
  const ours = (line: string) => keys.some((key) => line.startsWith(`${key}=`));
  return {
    value: (key) => lines.find((l) => l.startsWith(`${key}=`))?.slice(key.length + 1).trim(),
    json: JSON.parse(lines.filter((l) => !ours(l)).join('\n') || '{}'),
    stderr: run.stderr,
  };
}

DiskFull('should fail with a typed error naming the full file system and --output, publishing nothing, when the output does not fit :: hostile', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'mep-disk-full-'));
  try {
    const mep = [process.execPath, join(root, 'bin/mep.mjs'), 'generate', '--extension', join(root, 'fixtures/extensions/many-artifacts.mjs'), '--target', 'echo', '--input', join(root, 'fixtures/mep/ir/business-terms.json'), '--output', 'out', '--json'];
    // 1 MiB of file system, 4 artifacts of 512 KiB streamed into an output holding a file of the user's.
    const script = [
      `mount -t tmpfs -o size=1m tmpfs ${q(dir)}`,
      `cd ${q(dir)} && mkdir out && echo mine > out/mine.txt`,
      `${mep.map(q).join(' ')} --option stream=4 --option size=524288 --option count=0; echo "exit=$?"`,
      `echo "left=$(ls -A | tr '\\n' ' ')"; echo "out=$(ls -A out | tr '\\n' ' ')"; echo "mine=$(cat out/mine.txt)"; echo "used=$(du -sk . | cut -f1)"`,
    ].join('\n');
    const run = inNamespace(script, ['exit', 'left', 'out', 'mine', 'used']);
    if (run === undefined) return;
    const { value, json } = run;
    assert.is.not(value('exit'), '0', run.stderr);
    assert.is(json.error?.code, LocalErrorCode.Artifact, json.error?.message);
    assert.is(json.error?.data?.reason, 'no-space', json.error?.message);
    assert.match(json.error?.message ?? '', /no space left/);
    assert.match(json.error?.message ?? '', /--output/);
    assert.match(json.error?.message ?? '', /Nothing was published/);
    assert.is(value('left'), 'out', 'no staging tree or journal left beside the output');
    assert.is(value('out'), 'mine.txt', 'the output is as it was');
    assert.is(value('mine'), 'mine');
    assert.ok(Number(value('used')) < 64, `the space is given back (${value('used')} KiB used)`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

DiskFull('should fail with a typed error naming the full scratch folder and TMPDIR, installing nothing, when a package does not fit :: hostile', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'mep-disk-full-'));
  try {
    // A package of 3 MB (a file it lists), installed with its scratch on a 1 MiB tmpfs.
    const pkg = await writePackage(join(dir, 'pkg'), { id: 'acme.big', capabilities: backend('big'), manifest: { files: ['blob.bin'] } });
    await writeFile(join(pkg, 'blob.bin'), randomBytes(3_000_000));
    await writeFile(join(dir, 'big.tgz'), makeTarGz(await packageEntries(pkg)));
    await mkdir(join(dir, 'scratch'));
    await mkdir(join(dir, 'project'));
    const mep = [process.execPath, join(root, 'bin/mep.mjs'), 'install', join(dir, 'big.tgz'), '--json'];
    const script = [
      `mount -t tmpfs -o size=1m tmpfs ${q(join(dir, 'scratch'))}`,
      `cd ${q(join(dir, 'project'))} && MEP_HOME=${q(join(dir, 'home'))} TMPDIR=${q(join(dir, 'scratch'))} ${mep.map(q).join(' ')}; echo "exit=$?"`,
      // The user's own folder of temporary folders (process-temp.ts) may stay; nothing in it, nor beside it.
      `S=${q(join(dir, 'scratch'))}; echo "scratch=$( (ls -A "$S" | grep '^mep-' | grep -vx "mep-$(id -u)"; ls -A "$S/mep-$(id -u)" 2>/dev/null) | tr '\\n' ' ')"; echo "project=$(ls -A | tr '\\n' ' ')"`,
    ].join('\n');
    const run = inNamespace(script, ['exit', 'scratch', 'project']);
    if (run === undefined) return;
    const { value, json } = run;
    assert.not.match(run.stderr, /unexpected failure|at async/, run.stderr);
    assert.is.not(value('exit'), '0');
    assert.is(json.error?.code, LocalErrorCode.Registry, json.error?.message);
    assert.is(json.error?.data?.reason, 'no-space', json.error?.message);
    assert.match(json.error?.message ?? '', /TMPDIR/);
    assert.match(json.error?.message ?? '', /nothing was installed/i);
    assert.is(value('scratch'), '', 'the scratch folder was removed');
    assert.is(value('project'), '', 'nothing installed in the project');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

DiskFull('should fail mep pack past the file size limit (ulimit -f) with a typed error, leaving no temporary file, not crash on an unhandled rejection :: hostile', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'mep-disk-full-'));
  try {
    const pkg = await writePackage(join(dir, 'pkg'), { id: 'acme.big', capabilities: backend('big'), manifest: { files: ['blob.bin'] } });
    await writeFile(join(pkg, 'blob.bin'), randomBytes(3_000_000));
    // 1000 blocks of 512 bytes: the archive of 3 MB passes it. Node ignores SIGXFSZ: the write fails with EFBIG.
    const run = spawnSync('sh', ['-c', `ulimit -f 1000 && cd ${q(pkg)} && ${[process.execPath, join(root, 'bin/mep.mjs'), 'pack', '--json'].map(q).join(' ')}`], { encoding: 'utf8', timeout: 120_000 });
    assert.not.match(run.stderr, /triggerUncaughtException|unexpected failure|at async/, run.stderr);
    const json = JSON.parse(run.stdout);
    assert.is.not(run.status, 0);
    assert.is(json.error?.data?.reason, 'no-space', json.error?.message);
    assert.is(json.error?.data?.errno, 'EFBIG');
    assert.match(json.error?.message ?? '', /ulimit -f/);
    assert.equal((await readdir(pkg)).filter((name) => name.endsWith('.tmp') || name.endsWith('.tgz')), [], 'no temporary or partial archive left');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

DiskFull.run();

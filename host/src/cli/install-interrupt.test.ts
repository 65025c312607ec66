/**
 * `mep install` interrupted, or its package hostile to its removal, leaves nothing in the
 * temporary directory. Its scratch holds the
 * whole fetched package (up to the 512 MiB / 10,000-entry budget of an archive or a git
 * checkout, and its staged copy): before, SIGTERM or SIGINT ended `mep` without the `finally`
 * that removes it, so every interrupted install left it in `$TMPDIR` for good, and a SIGKILLed
 * one too.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { chmod, mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { seededRotation } from '../../../fixtures/testing/tier.ts';
import { withProject, type TempProject } from '../registry/test-support.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const mepBin = join(root, 'bin/mep.mjs');

/** A process extension that, once probed, says so in `marker` and never answers. */
async function stallingPackage(dir: string, marker: string): Promise<string> {
  await mkdir(join(dir, 'bin'), { recursive: true });
  await writeFile(
    join(dir, 'bin/x.mjs'),
    "import { writeFileSync } from 'node:fs';\nwriteFileSync(process.argv[2], 'started');\nprocess.stdin.on('end', () => process.exit(0)).resume();\n",
  );
  await writeFile(join(dir, 'extension.json'), JSON.stringify({ id: 'acme.stall', name: 'Stall', version: '1.0.0', runtime: 'process', entry: 'bin/x.mjs', args: [marker] }));
  return dir;
}

/** `mep install <pkg> [...flags]` in the project, with its own TMPDIR. */
function install(t: TempProject, tmp: string, pkg: string, ...flags: string[]): ChildProcess {
  return spawn(process.execPath, [mepBin, 'install', pkg, ...flags], {
    cwd: t.project,
    env: { ...process.env, TMPDIR: tmp, MEP_HOME: t.home },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
}

const exitOf = (child: ChildProcess): Promise<number | null> => new Promise((resolve) => child.once('exit', (code) => resolve(code)));

async function waitForFile(path: string): Promise<void> {
  for (let i = 0; i < 3_000; i++) {
    if (await readFile(path, 'utf8').catch(() => '')) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`${path} never appeared`);
}

/** The install scratches in `tmp`, or in the user's own folder in it (process-temp.ts's `mep-<uid>`). */
const scratchLeft = async (tmp: string): Promise<string[]> =>
  [...(await readdir(tmp)), ...(await readdir(join(tmp, `mep-${process.getuid?.()}`)).catch(() => []))].filter((name) => name.startsWith('mep-install-'));

const Interrupt = suite('cli :: mep install interrupted');

// One signal a run, in turn by the seed (both under `npm run test:long`): the same exit path.
for (const signal of seededRotation(['SIGTERM', 'SIGINT'] as const)) {
  Interrupt(`should remove its scratch directory when it gets ${signal} mid-install`, () =>
    withProject(async (t) => {
      const tmp = join(t.root, 'tmp');
      await mkdir(tmp);
      const marker = join(t.root, 'probed');
      const child = install(t, tmp, await stallingPackage(join(t.root, 'pkg'), marker), '--probe');
      await waitForFile(marker);
      assert.is((await scratchLeft(tmp)).length, 1, 'the install is under way');
      child.kill(signal);
      assert.is(await exitOf(child), signal === 'SIGTERM' ? 143 : 130);
      assert.equal(await scratchLeft(tmp), []);
    }),
  );
}

Interrupt('should remove the scratch directory a SIGKILLed install left, at the next install', () =>
  withProject(async (t) => {
    const tmp = join(t.root, 'tmp');
    await mkdir(tmp);
    const marker = join(t.root, 'probed');
    const pkg = await stallingPackage(join(t.root, 'pkg'), marker);
    const killed = install(t, tmp, pkg, '--probe');
    await waitForFile(marker);
    killed.kill('SIGKILL');
    await exitOf(killed);
    assert.is((await scratchLeft(tmp)).length, 1, 'SIGKILL leaves it');
    assert.is(await exitOf(install(t, tmp, pkg)), 0);
    assert.equal(await scratchLeft(tmp), []);
  }),
);

/** Node code that makes, under `dir`, a 300-deep folder path (about 6,600 characters: over PATH_MAX) by relative steps. */
const deepPathCode = (dir: string): string =>
  `for (const name of ['deep', ...Array(300).fill('d'.repeat(20))]) { (await import('node:fs')).mkdirSync(name); process.chdir(name); } process.chdir(${JSON.stringify(dir)});`;

// A package whose process, once probed, made its own folder hard to remove: a folder of mode 0500
// with a file in it, and a path deeper than PATH_MAX. The install failed (the probe got no answer),
// then its cleanup threw ENAMETOOLONG: the error the user saw was the cleanup's, and at exit the
// hook threw again (a stack trace) and left the scratch behind.
Interrupt('should remove a scratch its package made deep and unwritable, keeping the install failure', () =>
  withProject(async (t) => {
    const tmp = join(t.root, 'tmp');
    await mkdir(tmp);
    const pkg = join(t.root, 'pkg');
    await mkdir(join(pkg, 'bin'), { recursive: true });
    const here = "const here = (await import('node:path')).dirname((await import('node:url')).fileURLToPath(import.meta.url));";
    await writeFile(
      join(pkg, 'bin/x.mjs'),
      `${here}\nconst fs = await import('node:fs');\nprocess.chdir(here);\nfs.mkdirSync('locked');\nfs.writeFileSync('locked/file', 'x');\nfs.chmodSync('locked', 0o500);\n${deepPathCode('/')}\nprocess.exit(0);\n`,
    );
    await writeFile(join(pkg, 'extension.json'), JSON.stringify({ id: 'acme.deep', name: 'Deep', version: '1.0.0', runtime: 'process', entry: 'bin/x.mjs' }));
    const child = install(t, tmp, pkg, '--probe');
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => void (stderr += chunk.toString('utf8')));
    const code = await exitOf(child);
    assert.not.match(stderr, /ENAMETOOLONG|EACCES|ENOTEMPTY|    at /, stderr);
    assert.match(stderr, /acme\.deep|probe|answer/i, "the install's own failure is reported");
    assert.ok(code !== 0 && code !== null, `the install failed as the install decided (${code}): ${stderr}`);
    assert.equal(await scratchLeft(tmp), []);
  }),
);

/**
 * Runs `code` in a node process (as the unprivileged user `nobody` when this runs as root, so
 * that a folder of mode 0500 really refuses its file's removal) with `tmp` as TMPDIR and
 * `makeProcessTemp` imported; resolves its exit code and stderr.
 */
function runTempScript(tmp: string, code: string): Promise<{ code: number | null; stderr: string }> {
  const script = `const { makeProcessTemp } = await import(${JSON.stringify(join(root, 'host/src/files/process-temp.ts'))});\n${code}`;
  const asNobody = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
  return new Promise((resolve) => {
    const child = execFile(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: root, env: { ...process.env, TMPDIR: tmp }, ...asNobody }, (error, _stdout, stderr) =>
      resolve({ code: child.exitCode ?? (error ? -1 : 0), stderr }),
    );
  });
}

/** A temporary directory `nobody` can write in (when this runs as root). */
async function openTmp(t: TempProject): Promise<string> {
  const tmp = join(t.root, 'tmp');
  await mkdir(tmp, { mode: 0o777 });
  await chmod(tmp, 0o777);
  await chmod(t.root, 0o755);
  return tmp;
}

Interrupt('should remove at exit a scratch holding a folder of mode 0500 with a file, and a path over PATH_MAX', () =>
  withProject(async (t) => {
    const tmp = await openTmp(t);
    const { code, stderr } = await runTempScript(
      tmp,
      `const temp = makeProcessTemp('mep-install-'); process.chdir(temp.dir);\nconst fs = await import('node:fs'); fs.mkdirSync('locked'); fs.writeFileSync('locked/file', 'x'); fs.chmodSync('locked', 0o500);\n${deepPathCode('/')}\nprocess.exitCode = 3;`,
    );
    assert.is(stderr, '');
    assert.is(code, 3, 'the exit code stays what the program decided');
    assert.equal(await scratchLeft(tmp), []);
  }),
);

Interrupt('should remove, when asked, a scratch holding a folder of mode 0500 with a file, without throwing', () =>
  withProject(async (t) => {
    const tmp = await openTmp(t);
    const { code, stderr } = await runTempScript(
      tmp,
      `const temp = makeProcessTemp('mep-install-'); const fs = await import('node:fs'); fs.mkdirSync(temp.dir + '/locked'); fs.writeFileSync(temp.dir + '/locked/file', 'x'); fs.chmodSync(temp.dir + '/locked', 0o500);\nawait temp.remove(); process.exitCode = fs.existsSync(temp.dir) ? 5 : 4;`,
    );
    assert.is(stderr, '');
    assert.is(code, 4, 'removed, and remove() resolved');
    assert.equal(await scratchLeft(tmp), []);
  }),
);

if (process.getuid?.() === 0) {
  // Only root can put, in nobody's scratch, a folder nobody can neither make writable nor empty.
  Interrupt('should say in one warning line which folder it could not remove and how, keeping the exit code', () =>
    withProject(async (t) => {
      const tmp = await openTmp(t);
      const ready = join(tmp, 'ready');
      const running = runTempScript(
        tmp,
        `const fs = await import('node:fs'); const temp = makeProcessTemp('mep-install-'); fs.writeFileSync(${JSON.stringify(ready)}, temp.dir);\nwhile (!fs.existsSync(temp.dir + '/root-owned/file')) await new Promise((r) => setTimeout(r, 10));\nprocess.exitCode = 3;`,
      );
      await waitForFile(ready);
      const dir = await readFile(ready, 'utf8');
      await mkdir(join(dir, 'root-owned'));
      await writeFile(join(dir, 'root-owned/file'), 'x');
      const { code, stderr } = await running;
      assert.is(code, 3, 'the exit code stays what the program decided');
      assert.is(stderr.split('\n').filter(Boolean).length, 1, stderr);
      assert.ok(stderr.includes(dir) && /rm -rf/.test(stderr), stderr);
    }),
  );
}

/** Pids of the live (not zombie) processes whose command line contains `needle` (Linux /proc). */
function processesNaming(needle: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) continue;
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(needle)) found.push(Number(entry));
    } catch {
      // It ended between readdir and read.
    }
  }
  return found;
}

// A `git clone` of `mep install <git URL>` ran on when only `mep` got SIGTERM (a supervisor
// signalling its pid, not its group): git and git-remote-http stayed, blocked on the server, until
// the 10-minute fetch deadline of a `mep` that no longer existed.
if (process.platform === 'linux') {
  Interrupt('should end its git clone when only its own pid gets SIGTERM', () =>
    withProject(async (t) => {
      const server = createServer(() => undefined); // takes git's request, never answers
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/stall.git`;
      const tmp = join(t.root, 'tmp');
      await mkdir(tmp);
      try {
        const child = install(t, tmp, url);
        let stderr = '';
        child.stderr!.on('data', (chunk: Buffer) => void (stderr += chunk.toString('utf8')));
        // mep's own command line names the URL too: wait for two processes of git's.
        const gits = (): number[] => processesNaming(url).filter((pid) => pid !== child.pid);
        for (let i = 0; i < 3_000 && gits().length < 2; i++) await new Promise((resolve) => setTimeout(resolve, 10));
        assert.ok(gits().length >= 2, 'git clone and git-remote-http are under way');
        child.kill('SIGTERM');
        const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
        assert.is(code, 143, `mep exits as interrupted by SIGTERM, not killed by it (signal ${signal}); its stderr: ${stderr}`);
        assert.equal(processesNaming(url), [], 'a git process outlived mep');
      } finally {
        for (const pid of processesNaming(url)) process.kill(pid, 'SIGKILL');
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    }),
  );
}

Interrupt.run();

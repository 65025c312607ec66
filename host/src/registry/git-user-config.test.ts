/**
 * Red team (issue 31, round 14): the user's git configuration acting on a package's clone. git
 * ran the user's hooks (`core.hooksPath`, or those `init.templateDir` copies into every new
 * repository, as pre-commit's `init-templatedir` sets up) while it cloned and checked out the
 * package: `reference-transaction` at each ref the clone wrote, and `post-checkout` in the
 * package's checked-out tree, where a hook that acts on the repository it finds (pre-commit runs
 * the hooks the repository's own `.pre-commit-config.yaml` names) runs what the package says;
 * the user's `core.fsmonitor` command was started on it too. With `submodule.recurse` and
 * `submodule.active` set, a package holding a submodule failed to install (`git -C failed …
 * could not reset submodule index`). git now runs for a package with no hook, no fsmonitor and
 * no submodule recursion, whatever the user's configuration says.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { chmod, mkdir, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { installExtension } from './install.ts';
import { registryPaths } from './paths.ts';
import { withProject } from './test-support.ts';

const exec = promisify(execFile);

const UserConfig = suite("registry :: the user's git configuration does not act on a package's clone");

UserConfig("should clone and check out a package running none of the user's hooks or fsmonitor, and no submodule :: hooks", () =>
  withProject(async (t) => {
    const marks = join(t.root, 'marks');
    await mkdir(marks);
    const hooks = join(t.root, 'hooks');
    await mkdir(hooks);
    for (const hook of ['post-checkout', 'reference-transaction', 'pre-auto-gc']) {
      await writeFile(join(hooks, hook), `#!/bin/sh\necho "$PWD: $(ls)" > '${marks}/${hook}'\n`);
      await chmod(join(hooks, hook), 0o755);
    }
    // A repository the package names as its submodule (a file of the user's, say).
    const secret = join(t.root, 'secret');
    const g = (dir: string, ...args: string[]) => exec('git', ['-C', dir, '-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'protocol.file.allow=always', ...args]);
    await exec('git', ['init', '--quiet', secret]);
    await writeFile(join(secret, 'key.txt'), 'PRIVATE\n');
    await g(secret, 'add', '.');
    await g(secret, 'commit', '--quiet', '-m', 'secret');
    const work = join(t.root, 'work');
    await exec('git', ['init', '--quiet', work]);
    await mkdir(join(work, 'bin'));
    await writeFile(join(work, 'bin/x.js'), 'process.exit(0)\n');
    await writeFile(join(work, 'extension.json'), JSON.stringify({ id: 'acme.hooked', name: 'Hooked', version: '1.0.0', runtime: 'process', entry: 'bin/x.js' }));
    await g(work, 'submodule', 'add', '--quiet', pathToFileURL(secret).href, 'data');
    await g(work, 'add', '.');
    await g(work, 'commit', '--quiet', '-m', 'package');
    const config = join(t.root, 'gitconfig');
    await writeFile(config, [
      '[core]', `\thooksPath = ${hooks}`, `\tfsmonitor = "echo >'${marks}/fsmonitor'; true"`,
      '[submodule]', '\trecurse = true', '\tactive = .',
      '[protocol "file"]', '\tallow = always', '',
    ].join('\n'));
    const saved = process.env.GIT_CONFIG_GLOBAL;
    process.env.GIT_CONFIG_GLOBAL = config;
    try {
      const result = await installExtension({ source: pathToFileURL(work).href, paths: registryPaths({ cwd: t.project }) });
      assert.is(await readFile(join(result.dir, 'bin/x.js'), 'utf8'), 'process.exit(0)\n');
      const ran = await readdir(marks);
      assert.equal(ran, [], `ran: ${(await Promise.all(ran.map((m) => readFile(join(marks, m), 'utf8').then((text) => `${m} in ${text}`)))).join('; ')}`);
      assert.not.ok(await stat(join(result.dir, 'data/key.txt')).catch(() => undefined), 'the submodule was fetched');
    } finally {
      if (saved === undefined) delete process.env.GIT_CONFIG_GLOBAL;
      else process.env.GIT_CONFIG_GLOBAL = saved;
    }
  }),
);

UserConfig.run();

/**
 * Red team (issue 31): git's remote helpers run commands. A source such as
 * `ext::sh -c touch% /tmp/x .git` ends in `.git`, so `mep install` takes it for a git URL, and
 * git runs `sh` for it whenever the user's configuration allows the `ext` transport
 * (`protocol.ext.allow`, or `protocol.allow always`, set for something else). mep installs from
 * the transports it documents only (file, git, http, https, ssh), whatever the configuration says.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LocalErrorCode } from '../protocol/errors.ts';
import { installExtension } from './install.ts';
import { registryPaths } from './paths.ts';
import { withProject } from './test-support.ts';

const Protocols = suite('registry :: git sources use the documented transports only');

Protocols('should not run a remote helper command (ext::) even where the user\'s git configuration allows it :: ext', () =>
  withProject(async (t) => {
    const config = join(t.root, 'gitconfig');
    await writeFile(config, '[protocol]\n\tallow = always\n[protocol "ext"]\n\tallow = always\n');
    const marker = join(t.root, 'ran');
    const saved = process.env.GIT_CONFIG_GLOBAL;
    process.env.GIT_CONFIG_GLOBAL = config;
    try {
      const error = await installExtension({ source: `ext::sh -c touch% ${marker} .git`, paths: registryPaths({ cwd: t.project }) }).catch((e) => e);
      assert.is(error.code, LocalErrorCode.Registry, error.message ?? 'installed');
      assert.not.ok(await stat(marker).catch(() => undefined), 'git ran the ext:: command');
    } finally {
      if (saved === undefined) delete process.env.GIT_CONFIG_GLOBAL;
      else process.env.GIT_CONFIG_GLOBAL = saved;
    }
  }),
);

Protocols.run();

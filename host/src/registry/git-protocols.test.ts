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
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
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

/**
 * Red team (round 14): git followed a server's redirect for its first request, and then sent
 * every request of the clone there: a server the user named could point git, from the user's
 * machine, at any address (a service on loopback, a cloud metadata endpoint), where archive
 * downloads check the address of each hop. A redirect is now refused, the status named.
 */
Protocols('should not let a git server redirect the clone elsewhere (a service of the user\'s network) :: redirect', () =>
  withProject(async (t) => {
    let reached = 0;
    const listen = async (server: Server) => {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return (server.address() as AddressInfo).port;
    };
    const inner = createServer((_request, response) => {
      reached++;
      response.writeHead(404).end();
    });
    const innerPort = await listen(inner);
    const outer = createServer((request, response) => {
      response.writeHead(301, { Location: `http://127.0.0.1:${innerPort}/admin${request.url}` }).end();
    });
    const outerPort = await listen(outer);
    try {
      const error = await installExtension({ source: `http://127.0.0.1:${outerPort}/acme/ext.git`, paths: registryPaths({ cwd: t.project }) }).catch((e) => e);
      assert.is(error.code, LocalErrorCode.Registry, error.message ?? 'installed');
      assert.equal([error.data?.reason, error.data?.status], ['redirect', 301], error.message);
      assert.is(reached, 0, 'git followed the redirect');
    } finally {
      inner.close();
      outer.close();
    }
  }),
);

Protocols.run();

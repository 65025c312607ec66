/**
 * Red team (issue 31): a git source whose tree holds a path no file system takes. git checks
 * out a 4,621-character path (420 folders deep) relative to each folder, but nothing else can
 * open it: `mep install` ended with a raw ENAMETOOLONG (`unexpected failure`) while removing its
 * scratch, then crashed again at exit in the same removal, and left the scratch in $TMPDIR.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { LocalErrorCode } from '../protocol/errors.ts';
import { installExtension } from './install.ts';
import { registryPaths } from './paths.ts';
import { withProject } from './test-support.ts';

/** A repository at `repo` with one branch per entry of `branches`: a valid process package plus the file `extra`. */
function repository(repo: string, branches: Record<string, string>): Promise<string> {
  const manifest = JSON.stringify({ id: 'acme.names', name: 'Names', version: '1.0.0', runtime: 'process', entry: 'bin/x.js' });
  let stream = '';
  for (const [branch, extra] of Object.entries(branches)) {
    stream += `commit refs/heads/${branch}\ncommitter t <t@t> 0 +0000\ndata 1\nx\n`;
    for (const [path, text] of [['extension.json', manifest], ['bin/x.js', 'process.exit(0)\n'], [extra, 'x']] as const) stream += `M 100644 inline ${path}\ndata ${Buffer.byteLength(text)}\n${text}\n`;
  }
  return new Promise((resolve, reject) => {
    execFile('git', ['init', '--quiet', '--bare', repo], (error) => {
      if (error) return reject(error);
      const child = execFile('git', ['-C', repo, 'fast-import', '--quiet'], (failed) => (failed ? reject(failed) : resolve(pathToFileURL(repo).href)));
      child.stdin?.end(stream);
    });
  });
}

const Names = suite('registry :: a git source whose paths no file system takes');

Names('should refuse a tree path past 1,024 bytes or a name past 255 bytes before checking out, with a typed error, not ENAMETOOLONG :: git', () =>
  withProject(async (t) => {
    const url = await repository(join(t.root, 'names.git'), { deep: `${'dddddddddd/'.repeat(420)}f`, long: `lib/${'é'.repeat(150)}.js`, fine: 'lib/ok.js' });
    const paths = registryPaths({ cwd: t.project });
    for (const branch of ['deep', 'long']) {
      const error = await installExtension({ source: `${url}#${branch}`, paths }).catch((e) => e);
      assert.is(error.code, LocalErrorCode.Registry, `${branch}: ${error.message ?? 'installed'}`);
      assert.is(error.data?.reason, 'unsafe-entry', branch);
      assert.not.ok(await stat(join(t.project, '.mep/extensions/acme.names')).catch(() => undefined), `${branch}: nothing installed`);
    }
    assert.is((await installExtension({ source: `${url}#fine`, paths })).id, 'acme.names');
  }),
);

Names.run();

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalErrorCode, type MepError } from '../protocol/errors.ts';
import { readJsonFile } from './json-file.ts';

const Json = suite('files :: json-file, what a refusal shows');

/** The refusal of reading `path` as a project file. */
async function refusal(path: string): Promise<MepError> {
  return readJsonFile(path, { what: 'the project file', maxBytes: 1 << 20 }).then(
    () => {
      throw new Error(`read ${path} as JSON`);
    },
    (e: unknown) => e as MepError,
  );
}

Json('should never quote the text of a file it cannot parse: a morphir.json linked to a secret file of the user showed it in the error :: hostile', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'mep-json-file-'));
  try {
    // V8 quotes a short text whole, a longer one's first ten characters, in its SyntaxError.
    const secrets = { token: 'ghp_0123456789', env: 'GITHUB_TOKEN=ghp_0123456789abcdef\nAWS_SECRET=x\n', mid: '{"token": "ghp_0123456789abcdef", x}' };
    for (const [name, text] of Object.entries(secrets)) {
      await writeFile(join(dir, name), text);
      const link = join(dir, `${name}.json`);
      await symlink(join(dir, name), link);
      const error = await refusal(link);
      assert.equal([error.code, (error.data as { reason: string }).reason], [LocalErrorCode.Usage, 'not-json'], error.message);
      assert.not.match(error.message, /ghp_|GITHUB|0123/, `${name}: ${error.message}`);
      assert.match(error.message, link);
      assert.match(error.message, /line \d+, column \d+/, `${name}: says where: ${error.message}`);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

Json('should say a byte order mark is what makes a file not JSON, and where a problem is', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'mep-json-file-'));
  try {
    await writeFile(join(dir, 'bom.json'), '\ufeff{"name": "x"}');
    assert.match((await refusal(join(dir, 'bom.json'))).message, /byte order mark/);
    await writeFile(join(dir, 'late.json'), '{\n  "a": 1,\n  "b" 2\n}');
    assert.match((await refusal(join(dir, 'late.json'))).message, /line 3, column 7/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

Json.run();

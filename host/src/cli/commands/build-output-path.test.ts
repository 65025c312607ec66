// `mep build -o` naming a folder (or a folder where the map or the build record goes): a typed
// refusal before anything is built or written, never an untyped rename failure after the map.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { replaceFile } from '../../../../build/guest/internal/replace-file.ts';
import { MepError } from '../../protocol/errors.ts';
import { captureIo } from '../io.ts';
import { main } from '../main.ts';

const OutputPath = suite('cli :: mep build -o naming a folder');

OutputPath('should refuse an -o that is a folder, or whose map or build record would be one, naming it and writing nothing :: folder', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mep-build-out-'));
  try {
    writeFileSync(join(dir, 'main.ts'), 'export function handle(): number { return 1; }\n');
    for (const [out, folder] of [['outdir', 'outdir'], ['guest.mjs', 'guest.mjs.map'], ['other.mjs', 'other.mjs.build.json']] as const) {
      mkdirSync(join(dir, folder));
      const before = readdirSync(dir).sort();
      const io = captureIo(dir);
      const code = await main(['build', 'main.ts', '-o', out, '--runtime', 'process', '--no-typecheck'], io);
      const err = io.stderr.join('\n');
      assert.is(code, 2, err);
      assert.match(err, new RegExp(`${folder.replace(/\./g, '\\.')}[^]*is a folder`));
      assert.not.match(err, /unexpected failure|EISDIR/);
      assert.equal(readdirSync(dir).sort(), before, 'nothing written');
    }
    // A folder made at the name after the check (a watch's next build): typed too, no temporary file left.
    mkdirSync(join(dir, 'later.wasm'));
    assert.throws(() => replaceFile(join(dir, 'later.wasm'), 'x'), (e: unknown) => e instanceof MepError && e.code === 'ERR_USAGE' && e.message.includes(join(dir, 'later.wasm')));
    assert.equal(readdirSync(dir).filter((n) => n.includes('.tmp-')), []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

OutputPath.run();

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isMepError } from '../../protocol/errors.ts';
import { parseOptionFlags } from './options.ts';

const Options = suite('cli :: --option k=v and k=@file');

const refusal = (fn: () => unknown): string => {
  try {
    fn();
  } catch (error) {
    return `${isMepError(error) ? `${String(error.code)} ` : ''}${(error as Error).message}`;
  }
  return 'no error';
};

Options('k=@file reads the file (JSON when it is JSON, else text); @@ is a literal @', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mep-option-'));
  try {
    writeFileSync(join(dir, 'mappings.json'), '{"Int": "long"}\n');
    writeFileSync(join(dir, 'header.txt'), '// generated\n');
    const options = parseOptionFlags(['type_mappings=@mappings.json', 'header=@header.txt', 'handle=@@acme', 'plain=x'], dir);
    assert.equal(options, { type_mappings: { Int: 'long' }, header: '// generated\n', handle: '@acme', plain: 'x' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

Options('k=@ refuses a missing file, a folder, a FIFO and an oversized file, naming the option', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mep-option-'));
  try {
    assert.match(refusal(() => parseOptionFlags(['m=@absent.json'], dir)), /--option m/);
    assert.match(refusal(() => parseOptionFlags(['m=@.'], dir)), /--option m.*(director|folder|not a regular file)/i);
    assert.match(refusal(() => parseOptionFlags(['m=@'], dir)), /needs a file name/);
    writeFileSync(join(dir, 'big.txt'), Buffer.alloc(1024 * 1024 + 1, 0x61));
    assert.match(refusal(() => parseOptionFlags(['m=@big.txt'], dir)), /ERR_LIMIT|larger|too large/i);
    if (process.platform !== 'win32') {
      execFileSync('mkfifo', [join(dir, 'fifo')]);
      assert.match(refusal(() => parseOptionFlags(['m=@fifo'], dir)), /FIFO/);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

Options.run();

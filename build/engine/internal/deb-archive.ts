/**
 * Unpacks the files of a Debian package (.deb) into a folder: with `dpkg-deb -x` where dpkg is
 * installed (every Debian system: it decompresses the data itself, so xz need not be), else by
 * reading the package's ar archive here and handing its `data.tar.*` member to `tar`.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** One member of an ar archive: its name and where its bytes are. */
export interface ArMember {
  name: string;
  offset: number;
  size: number;
}

const AR_MAGIC = '!<arch>\n';
const HEADER = 60;

/** The members of the ar archive `bytes` (a .deb is one); throws on a malformed archive. */
export function arMembers(bytes: Uint8Array): ArMember[] {
  const text = (from: number, len: number): string => Buffer.from(bytes.subarray(from, from + len)).toString('latin1');
  if (text(0, AR_MAGIC.length) !== AR_MAGIC) throw new Error('not an ar archive (a .deb starts with "!<arch>")');
  const members: ArMember[] = [];
  let at = AR_MAGIC.length;
  while (at + HEADER <= bytes.length) {
    if (text(at + 58, 2) !== '`\n') throw new Error(`malformed ar member header at byte ${at}`);
    const name = text(at, 16).trim().replace(/\/$/, '');
    const size = Number(text(at + 48, 10).trim());
    const offset = at + HEADER;
    if (!Number.isSafeInteger(size) || size < 0 || offset + size > bytes.length) throw new Error(`ar member '${name}' runs past the end of the archive`);
    members.push({ name, offset, size });
    at = offset + size + (size % 2); // members are padded to an even length
  }
  return members;
}

function hasDpkgDeb(): boolean {
  try {
    execFileSync('dpkg-deb', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * Unpacks the data of the package at `debPath` into `dir` (which must exist); `dpkg: false`
 * takes the ar-and-tar way even where dpkg-deb is installed.
 */
export function extractDeb(debPath: string, dir: string, options: { dpkg?: boolean } = {}): void {
  if (options.dpkg !== false && hasDpkgDeb()) {
    execFileSync('dpkg-deb', ['-x', debPath, dir], { stdio: ['ignore', 'ignore', 'pipe'] });
    return;
  }
  const bytes = readFileSync(debPath);
  const data = arMembers(bytes).find((m) => m.name.startsWith('data.tar'));
  if (!data) throw new Error(`${debPath} has no data.tar member`);
  const tarball = join(dir, `.${data.name}`);
  writeFileSync(tarball, bytes.subarray(data.offset, data.offset + data.size));
  try {
    execFileSync('tar', ['-xf', tarball, '-C', dir], { stdio: ['ignore', 'ignore', 'pipe'] });
  } finally {
    if (existsSync(tarball)) rmSync(tarball);
  }
}

/**
 * Test helpers for the registry and the CLI: temporary projects with their own MEP_HOME,
 * packages built around the configurable process fixture, and tiny tar.gz / zip writers that
 * can produce the hostile archives real tools refuse to make.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { constants, deflateRawSync, gzipSync } from 'node:zlib';
import { crc32 } from './archive/crc32.ts';
import { sealTarHeader } from './archive/tar-write.ts';

/** The repository root. */
export const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

/** The configurable process fixture (capabilities from its first argument). */
export const configurableFixture = join(repoRoot, 'fixtures/extensions/configurable.mjs');

/**
 * A process of the repository running `body` (a module's statements, `paths` in scope as the
 * registry paths of `cwd` under `home`) once told to go on its stdin: start several, await all
 * `ready`, then call each `go()` so their changes race.
 */
export function racer(home: string, cwd: string, imports: string, body: string) {
  const script = `${imports}
    import { registryPaths } from './host/src/registry/paths.ts';
    const paths = registryPaths({ cwd: ${JSON.stringify(cwd)} });
    process.stdout.write('ready\\n');
    process.stdin.once('data', async () => { ${body}; process.exit(0); });`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: repoRoot, env: { ...process.env, MEP_HOME: home }, stdio: ['pipe', 'pipe', 'inherit'] });
  const ready = once(createInterface({ input: child.stdout }), 'line');
  return { child, ready, go: () => child.stdin.write('go\n'), done: once(child, 'exit') as Promise<[number | null]> };
}

/** Runs racers (see {@link racer}) so their changes overlap, and returns their exit codes. */
export async function race(racers: ReturnType<typeof racer>[]): Promise<(number | null)[]> {
  await Promise.all(racers.map((r) => r.ready));
  for (const r of racers) r.go();
  return (await Promise.all(racers.map((r) => r.done))).map(([code]) => code);
}

/** A temporary project directory and MEP_HOME; `cleanup()` removes both and restores MEP_HOME. */
export interface TempProject {
  root: string;
  project: string;
  home: string;
  cleanup(): Promise<void>;
}

/** Creates a project dir and a MEP_HOME dir under one temp root and points `MEP_HOME` at it. */
export async function tempProject(): Promise<TempProject> {
  const root = await mkdtemp(join(tmpdir(), 'mep-registry-'));
  const project = join(root, 'project');
  const home = join(root, 'home');
  await mkdir(project);
  await mkdir(home);
  const previous = process.env.MEP_HOME;
  process.env.MEP_HOME = home;
  return {
    root,
    project,
    home,
    async cleanup() {
      if (previous === undefined) delete process.env.MEP_HOME;
      else process.env.MEP_HOME = previous;
      await rm(root, { recursive: true, force: true });
    },
  };
}

/** Runs `fn` in a fresh temporary project and always removes it afterwards. */
export async function withProject(fn: (t: TempProject) => Promise<void>): Promise<void> {
  const t = await tempProject();
  try {
    await fn(t);
  } finally {
    await t.cleanup();
  }
}

/** What {@link writePackage} puts in extension.json and in the fixture's argument. */
export interface FixturePackage {
  id: string;
  version?: string;
  capabilities: Record<string, unknown>;
  /** Secret references for `permissions.secrets`. */
  secrets?: string[];
  /** Extra manifest members. */
  manifest?: Record<string, unknown>;
  /** Passed to the fixture (e.g. `describe: false`). */
  fixture?: Record<string, unknown>;
  /** Entry path; default `bin/ext.mjs`. */
  entry?: string;
}

/** Writes a package directory for the configurable fixture and returns it. */
export async function writePackage(dir: string, pkg: FixturePackage): Promise<string> {
  const entry = pkg.entry ?? 'bin/ext.mjs';
  await mkdir(join(dir, dirname(entry)), { recursive: true });
  await writeFile(join(dir, entry), await readFile(configurableFixture));
  const version = pkg.version ?? '1.0.0';
  const manifest = {
    id: pkg.id,
    name: `Fixture ${pkg.id}`,
    version,
    runtime: 'process',
    entry,
    args: [JSON.stringify({ id: pkg.id, version, name: `Fixture ${pkg.id}`, capabilities: pkg.capabilities, ...pkg.fixture })],
    ...(pkg.secrets ? { permissions: { secrets: pkg.secrets } } : {}),
    ...pkg.manifest,
  };
  await writeFile(join(dir, 'extension.json'), JSON.stringify(manifest, null, 2));
  return dir;
}

/** A package directory's files as archive members under `prefix` (e.g. `acme-1.0.0/`). */
export async function packageEntries(dir: string, prefix = ''): Promise<{ path: string; data: Uint8Array }[]> {
  const files = (await readdir(dir, { recursive: true, withFileTypes: true })).filter((d) => d.isFile());
  return Promise.all(files.map(async (d) => ({ path: `${prefix}${join(d.parentPath, d.name).slice(dir.length + 1)}`, data: new Uint8Array(await readFile(join(d.parentPath, d.name))) })));
}

/**
 * A process package `acme.multi` whose entry `bin/crm` exists only per platform:
 * `bin/crm-linux-amd64`, `-darwin-arm64` and `-windows-amd64.exe`, each holding "binary for <p>".
 */
export async function writeMultiPlatformPackage(dir: string): Promise<string> {
  await mkdir(join(dir, 'bin'), { recursive: true });
  await writeFile(join(dir, 'extension.json'), JSON.stringify({ id: 'acme.multi', name: 'Multi', version: '1.0.0', runtime: 'process', entry: 'bin/crm' }));
  for (const p of ['linux-amd64', 'darwin-arm64', 'windows-amd64.exe']) await writeFile(join(dir, `bin/crm-${p}`), `binary for ${p}`, { mode: 0o755 });
  return dir;
}

/** A backend claiming `targets` for IR 3. */
export function backend(...targets: string[]): Record<string, unknown> {
  return { backend: { targets, irVersions: ['3'], generate: true } };
}

/** One member for the archive writers. */
export interface TestEntry {
  path: string;
  data?: string | Uint8Array;
  /** A symlink target instead of data. */
  link?: string;
  mode?: number;
  /** Zip only: already deflated data with the size and CRC-32 to declare (which may lie). */
  deflated?: { data: Uint8Array; size: number; crc: number };
  /** Zip only: point this member's central record at the local header of member `sharesWith`. */
  sharesWith?: number;
  /** Zip only: the central record's extra field (e.g. an Info-ZIP Unicode Path, 0x7075). */
  extra?: Uint8Array;
  /** Zip only: the general purpose flags; default bit 11 (UTF-8 names) when the name is not ASCII, as zip tools write it. */
  flags?: number;
}

/**
 * A raw deflate stream of `prefix` followed by `mib` MiB of zeros, about 1 KB per MiB: one
 * fully flushed block of zeros (it refers to nothing before it) repeated, so a stream that
 * inflates to 10 GiB is made in milliseconds and takes 10 MB.
 */
export function zerosDeflated(mib: number, prefix: Uint8Array = new Uint8Array()): Uint8Array {
  const flush = { finishFlush: constants.Z_FULL_FLUSH, level: 9 };
  const zeros = deflateRawSync(Buffer.alloc(1 << 20), flush);
  const parts = [deflateRawSync(Buffer.concat([prefix, Buffer.alloc(1 << 20)]), flush)];
  for (let i = 1; i < mib; i++) parts.push(zeros);
  parts.push(deflateRawSync(Buffer.alloc(0)));
  return new Uint8Array(Buffer.concat(parts));
}

/** A tar header block for a regular file of `size` bytes (GNU base-256 size: any size fits). */
export function tarHeader(path: string, size: number): Uint8Array {
  const header = Buffer.alloc(512);
  header.write(path, 0, 100, 'utf8');
  header.write(octal(0o644, 8), 100, 'ascii');
  header.write(octal(0, 8), 108, 'ascii');
  header.write(octal(0, 8), 116, 'ascii');
  header[124] = 0x80;
  for (let i = 135, rest = size; i > 124; i--, rest = Math.floor(rest / 256)) header[i] = rest % 256;
  header.write(octal(0, 12), 136, 'ascii');
  header.write('0', 156, 'ascii');
  header.write('ustar\x0000', 257, 'binary');
  header.write('        ', 148, 'ascii');
  let sum = 0;
  for (const b of header) sum += b;
  header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
  return new Uint8Array(header);
}

/** A tar header of type `type` (`x`, `g`, `L` extension headers, `0` a file) declaring `size` bytes, in octal. */
export function tarTypedHeader(type: string, size: number): Buffer {
  const header = Buffer.from(tarHeader(type === '0' ? 'member' : 'ext', 0));
  header.write(`${size.toString(8).padStart(11, '0')}\0`, 124, 'ascii');
  header.write(type, 156, 'ascii');
  return sealTarHeader(header);
}

/**
 * A gzip bomb: `mib` MiB of zeros after `prefix` (e.g. a {@link tarHeader} declaring a huge
 * member), in a gzip wrapper whose trailer is never reached by a reader that stops in time.
 */
export function gzipBomb(mib: number, prefix?: Uint8Array): Uint8Array {
  const header = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255]);
  return new Uint8Array(Buffer.concat([header, zerosDeflated(mib, prefix), Buffer.alloc(8)]));
}

function octal(value: number, length: number): string {
  return `${value.toString(8).padStart(length - 1, '0')}\0`;
}

/** A .tar.gz with exactly these members (paths unchecked, so hostile ones can be made). */
export function makeTarGz(entries: readonly TestEntry[]): Uint8Array {
  const blocks: Buffer[] = [];
  for (const e of entries) {
    const data = e.link !== undefined ? Buffer.alloc(0) : Buffer.from(e.data ?? '');
    const header = Buffer.alloc(512);
    header.write(e.path, 0, 100, 'utf8');
    header.write(octal(e.mode ?? 0o644, 8), 100, 'ascii');
    header.write(octal(0, 8), 108, 'ascii');
    header.write(octal(0, 8), 116, 'ascii');
    header.write(octal(data.length, 12), 124, 'ascii');
    header.write(octal(0, 12), 136, 'ascii');
    header.write('        ', 148, 'ascii');
    header.write(e.link !== undefined ? '2' : e.path.endsWith('/') ? '5' : '0', 156, 'ascii');
    if (e.link !== undefined) header.write(e.link, 157, 100, 'utf8');
    header.write('ustar\x0000', 257, 'binary');
    let sum = 0;
    for (const b of header) sum += b;
    header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
    blocks.push(header, data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return new Uint8Array(gzipSync(Buffer.concat(blocks)));
}

/** A .zip with exactly these members, deflated, Unix modes (symlinks as mode 0o120777). */
export function makeZip(entries: readonly TestEntry[]): Uint8Array {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  const localOffsets: number[] = [];
  for (const e of entries) {
    const name = Buffer.from(e.path, 'utf8');
    const data = Buffer.from(e.link ?? e.data ?? '');
    const packed = e.deflated ? Buffer.from(e.deflated.data) : deflateRawSync(data);
    const crc = e.deflated ? e.deflated.crc : crc32(data);
    const size = e.deflated ? e.deflated.size : data.length;
    const mode = e.link !== undefined ? 0o120777 : e.path.endsWith('/') ? 0o040755 : 0o100000 | (e.mode ?? 0o644);
    const flags = e.flags ?? (/^[\x00-\x7f]*$/.test(e.path) ? 0 : 0x800);
    const extra = Buffer.from(e.extra ?? new Uint8Array());
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(flags, 6);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE((3 << 8) | 20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(flags, 8);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(packed.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt16LE(extra.length, 30);
    central.writeUInt32LE((mode << 16) >>> 0, 38);
    localOffsets.push(offset);
    central.writeUInt32LE(e.sharesWith === undefined ? offset : (localOffsets[e.sharesWith] as number), 42);
    centrals.push(central, name, extra);
    if (e.sharesWith !== undefined) continue;
    locals.push(local, name, packed);
    offset += local.length + name.length + packed.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return new Uint8Array(Buffer.concat([...locals, directory, end]));
}

/**
 * Which files of a project's source folder go to a frontend, whatever it claims: files of the
 * language (an Elm project sends `.elm` files, whatever extensions the frontend names; another
 * language sends the extensions its frontend claims, never an empty one, a dotfile's or a key's),
 * under `sourceDirectory` only: never a dotfile, nothing in a dot-directory (`.git`, `.env`),
 * never through a link (a link out, or a loop, is not followed), never a FIFO, device or socket;
 * at most `maxSourceFiles` of them, and at most `maxSourceBytes` in all (the request carries
 * them, so the message limit). A frontend in the sandbox that claims `.env`, `.pem` or `""`
 * gets no secret from the folder. Node edge.
 */
import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { LocalErrorCode, MepError } from '../protocol/errors.ts';
import { HOST_FILE_LIMITS, raiseAdvice } from '../protocol/limits.ts';
import { readRegularFile } from '../files/regular-file.ts';

/** The source file extensions of languages the host knows: their frontends' claims are not consulted. */
const KNOWN_LANGUAGES: Readonly<Record<string, readonly string[]>> = Object.freeze({ elm: ['.elm'] });

/** A file extension a source file may have: a dot, then a short word. */
const SOURCE_EXTENSION = /^\.[A-Za-z0-9][A-Za-z0-9_+-]{0,15}$/;

/** Extensions of keys, certificates, credentials and environment files: never sources. */
const SECRET_EXTENSIONS = new Set(['.pem', '.key', '.crt', '.cer', '.der', '.csr', '.p8', '.p12', '.pfx', '.jks', '.keystore', '.kdbx', '.gpg', '.pgp', '.asc', '.ppk', '.env', '.netrc', '.npmrc', '.pypirc', '.htpasswd', '.ovpn', '.tfstate', '.secret', '.secrets', '.token', '.credentials', '.git', '.ssh']);

/**
 * The file extensions sent for `languageId`: a known language's own, or the claimed ones that
 * look like a source file's (lower-cased for the comparison). Throws ERR_USAGE
 * (`data.reason: 'no-source-extension'`) when none is left.
 */
export function sourceExtensionsFor(languageId: string, claimed: readonly string[]): string[] {
  const known = Object.hasOwn(KNOWN_LANGUAGES, languageId) ? KNOWN_LANGUAGES[languageId] : undefined;
  if (known !== undefined) return [...known];
  const kept = [...new Set(claimed.filter((e) => SOURCE_EXTENSION.test(e) && !SECRET_EXTENSIONS.has(e.toLowerCase())))];
  if (kept.length === 0) {
    throw new MepError(LocalErrorCode.Usage, `The frontend claims no source file extension for '${languageId}' that mep sends (it claims ${JSON.stringify(claimed)}; an extension is a dot and a short word, and never one of keys or credentials). Compile the files by name instead: mep compile <file>… --lang ${languageId}.`, {
      data: { languageId, claimed, reason: 'no-source-extension' },
    });
  }
  return kept;
}

/** The bounds of one source folder. */
export interface SourceLimits {
  /** Most source files sent. Default `HOST_FILE_LIMITS.sourceFiles` (`--max-sources`). */
  maxSourceFiles?: number;
  /** Most bytes of sources (and local dependencies) read. Default the default message limit (`--max-message`). */
  maxSourceBytes?: number;
}

function tooMany(sourceDir: string, limit: number, what: string): MepError {
  return new MepError(LocalErrorCode.Limit, `${sourceDir} holds more than ${limit} ${what}, the limit of one compile. Raise it with --max-sources ${limit * 2} on the mep command line, or compile a smaller project.`, {
    data: { sourceDir, limit: 'maxSourceFiles', maxSourceFiles: limit },
  });
}

function tooDeep(sourceDir: string, folder: string): MepError {
  return new MepError(LocalErrorCode.Limit, `${sourceDir} has folders nested deeper than ${HOST_FILE_LIMITS.sourceDepth} folders (${folder.slice(0, 200)}…), more than mep walks for sources. Move the sources to a shallower folder, or point sourceDirectory at one.`, {
    data: { sourceDir, limit: 'sourceDepth', maxSourceDepth: HOST_FILE_LIMITS.sourceDepth },
  });
}

/** What {@link listSourceTree} finds: the source files, and every folder it looked in. */
export interface SourceTree {
  /** The source files, sorted by path. */
  files: string[];
  /** `sourceDir` and every folder under it that was looked in (no link, no dot-directory), shallowest first. */
  folders: string[];
}

/**
 * Every source file under `sourceDir` with one of `extensions` (see the file's comment), sorted
 * by path. Throws ERR_LIMIT (`data.limit: 'maxSourceFiles'`) past the count, or past ten
 * directory entries per file allowed.
 */
export async function findSourceFiles(sourceDir: string, extensions: readonly string[], limits: SourceLimits = {}): Promise<string[]> {
  return (await listSourceTree(sourceDir, extensions, limits)).files;
}

/**
 * The source files under `sourceDir` and the folders they were looked for in, within the bounds
 * of {@link findSourceFiles}: what `mep compile --watch` watches. A link (to a folder out of the
 * project, to `/`, or a loop) is not a folder of the tree; a FIFO, a device or a socket is neither.
 */
export async function listSourceTree(sourceDir: string, extensions: readonly string[], limits: SourceLimits = {}): Promise<SourceTree> {
  const maxFiles = limits.maxSourceFiles ?? HOST_FILE_LIMITS.sourceFiles;
  const maxEntries = maxFiles * HOST_FILE_LIMITS.entriesPerSourceFile;
  const files: string[] = [];
  // Breadth first (the folders list is the queue): when a watch can take only some folders, it takes the shallowest.
  const folders = [sourceDir];
  const depths = [0];
  let entries = 0;
  for (let next = 0; next < folders.length; next++) {
    const folder = folders[next];
    if (depths[next] > HOST_FILE_LIMITS.sourceDepth) throw tooDeep(sourceDir, folder);
    let listed: Dirent[];
    try {
      listed = await readdir(folder, { withFileTypes: true });
    } catch (error) {
      // A folder removed or replaced since its parent was listed (a branch switch) holds nothing.
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') continue;
      const what = code === 'ENAMETOOLONG' ? 'its path is longer than the system takes' : (error as Error).message;
      throw new MepError(LocalErrorCode.Usage, `Cannot list ${folder.slice(0, 300)}${folder.length > 300 ? '…' : ''}, a folder under ${sourceDir}: ${what}. Make it readable or shorter, or move it out of the source folder.`, {
        data: { sourceDir, folder, reason: code === 'ENAMETOOLONG' ? 'path-too-long' : 'unreadable', errno: code },
        cause: error,
      });
    }
    entries += listed.length;
    if (entries > maxEntries) throw tooMany(sourceDir, maxFiles, `source files (it has over ${maxEntries} entries to look at)`);
    for (const entry of listed) {
      // A dotfile or a dot-directory is never a source (.git, .env, .ssh); a link is not followed.
      if (entry.name.startsWith('.') || entry.isSymbolicLink()) continue;
      const path = join(folder, entry.name);
      if (entry.isDirectory()) {
        folders.push(path);
        depths.push(depths[next] + 1);
      }
      else if (entry.isFile() && extensions.includes(extname(entry.name))) {
        if (files.length >= maxFiles) throw tooMany(sourceDir, maxFiles, 'source files');
        files.push(path);
      }
    }
  }
  return { files: files.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)), folders };
}

/** Reads files within one byte budget; see {@link createSourceReader}. */
export interface SourceReader {
  /** The text of `path`: a regular file, not through a link when `noFollow`, within what is left of the budget. */
  read(path: string, what: string, noFollow: boolean): Promise<string>;
}

/**
 * A reader of the files of one compile request, all of them within `maxBytes` (ERR_LIMIT naming
 * `--max-message` past it: the request carries them all).
 */
export function createSourceReader(maxBytes: number): SourceReader {
  let used = 0;
  const over = (path: string, needed: number): MepError =>
    new MepError(LocalErrorCode.Limit, `The sources of one compile (with its local dependencies) are over ${maxBytes} bytes, reading ${path}; the request carries them all. ${raiseAdvice('maxMessageBytes', maxBytes, needed)}`, {
      data: { file: path, limit: 'maxMessageBytes', maxBytes, reason: 'too-large' },
    });
  return {
    async read(path, what, noFollow) {
      let bytes: Buffer;
      try {
        // Files are read concurrently: each within the whole budget, the sum checked as each arrives.
        bytes = await readRegularFile(path, { what, maxBytes, noFollow, limit: 'maxMessageBytes' });
      } catch (error) {
        if (error instanceof MepError && error.code === LocalErrorCode.Limit) throw over(path, used + ((error.data as { size?: number }).size ?? maxBytes));
        throw error;
      }
      used += bytes.length;
      if (used > maxBytes) throw over(path, used);
      return bytes.toString('utf8');
    },
  };
}

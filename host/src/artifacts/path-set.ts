/**
 * When two artifact paths name the same file. On macOS (APFS, HFS+) and Windows (NTFS) file
 * names are compared without regard to case, and on macOS also to Unicode normalization, so
 * `a.avsc` and `A.avsc`, or `é.avsc` written precomposed (NFC) and decomposed (NFD), are one
 * file there: writing both loses one of them without a word. The host compares paths the way
 * the reference host compares the entries of an archive it extracts (finos/morphir-rust,
 * morphir-distribution, tool_archive.rs: every prefix of every path keyed by NFC, full case
 * folding, NFC), and refuses a result in which two different spellings share a key, or one key
 * is both a file and a directory, on every platform, so that a result never means different
 * trees on different machines. HFS+ also ignores some code points in names (zero-width and
 * bidirectional controls, U+FEFF): the key drops every default-ignorable code point, so `a.txt`
 * and `a\u200b.txt` are one name too. No I/O.
 */
import { LocalErrorCode, MepError } from '../protocol/errors.ts';

/**
 * The key two paths share exactly when a case-insensitive, normalization-insensitive file
 * system takes them for the same name: NFC, case folding, NFC. JavaScript has no case folding;
 * lowering, upper-casing and lowering again folds as full case folding does where names differ
 * (`ß`, `ẞ` and `SS` all become `ss`, the Kelvin sign `k`, `ﬁ` `fi`), and never separates what
 * folding joins.
 *
 * @example
 * artifactPathKey('Cafe\u0301/A.avsc') === artifactPathKey('café/a.avsc'); // true
 */
export function artifactPathKey(path: string): string {
  // ASCII (most paths) has nothing to drop or normalize, and folds as it lowers.
  if (isAscii(path)) return path.toLowerCase();
  return path.replace(IGNORABLE, '').normalize('NFC').toLowerCase().toUpperCase().toLowerCase().normalize('NFC');
}

const ASCII = /^[\x00-\x7f]*$/;

/** True when `text` is all ASCII. */
export function isAscii(text: string): boolean {
  return ASCII.test(text);
}

/** Code points that render as nothing and that HFS+ leaves out when it compares names (a superset of its list). */
const IGNORABLE = /\p{Default_Ignorable_Code_Point}/gu;

/** Which rule makes `a` and `b` (different spellings with one key) one name. */
function ruleOf(a: string, b: string): 'ignorable-code-point' | 'unicode-normalization' | 'case' {
  if (a.replace(IGNORABLE, '') !== a || b.replace(IGNORABLE, '') !== b) return 'ignorable-code-point';
  return a.normalize('NFC') === b.normalize('NFC') ? 'unicode-normalization' : 'case';
}

/** The paths of one result so far; {@link createArtifactPathSet}. */
export interface ArtifactPathSet {
  /**
   * Adds the file `path` (already checked by `checkArtifactPath`), or throws ERR_ARTIFACT when
   * it or one of its directories collides with what was added before; a refused path leaves the
   * set as it was.
   */
  add(path: string): void;
  /** How many paths were added. */
  readonly size: number;
}

function collision(extension: string, path: string, problem: string, rule: string, other?: string): MepError {
  return new MepError(
    LocalErrorCode.Artifact,
    `Extension '${extension}' returned an unsafe artifact ${JSON.stringify(path)}: ${problem}. Nothing was written; report this to the extension's author.`,
    { data: { extension, path, problem, rule, ...(other === undefined ? {} : { other }) } },
  );
}

type Kind = 'file' | 'directory';

/**
 * Creates an empty set of artifact paths for one result of `extension`. As paths are added one
 * at a time it refuses a path returned twice, two spellings of one name under
 * {@link artifactPathKey} (`A.avsc` and `a.avsc`, or directories `Types/` and `types/`), and a
 * name that is a file in one path and a directory in another. Each `add` costs the length of
 * its path.
 */
export function createArtifactPathSet(extension: string): ArtifactPathSet {
  // Folded key of every prefix -> its spelling and kind.
  const names = new Map<string, { spelling: string; kind: Kind; path: string }>();
  let size = 0;
  return {
    add(path) {
      // Prefixes are checked shortest first. Once one is new, every longer one is new too (its
      // key extends a new key), so a refusal always comes before anything was added.
      for (let end = path.indexOf('/'); ; end = path.indexOf('/', end + 1)) {
        const last = end < 0;
        const prefix = last ? path : path.slice(0, end);
        const kind: Kind = last ? 'file' : 'directory';
        const key = artifactPathKey(prefix);
        const known = names.get(key);
        if (known === undefined) {
          names.set(key, { spelling: prefix, kind, path });
        } else if (known.spelling !== prefix) {
          const rule = ruleOf(prefix, known.spelling);
          const how = rule === 'ignorable-code-point' ? 'HFS+ (macOS), which ignores zero-width and bidirectional control characters in names' : 'case- or normalization-insensitive file systems (macOS, Windows)';
          throw collision(extension, path, `${JSON.stringify(prefix)} and ${JSON.stringify(known.spelling)} (of ${JSON.stringify(known.path)}) are one name on ${how}`, rule, known.path);
        } else if (kind === 'file' && known.kind === 'file') {
          throw collision(extension, path, 'it is returned twice', 'duplicate', known.path);
        } else if (kind !== known.kind) {
          throw collision(extension, path, kind === 'file' ? 'another artifact uses it as a directory' : `its parent ${JSON.stringify(prefix)} is also an artifact`, 'file-and-directory', known.path);
        }
        if (last) break;
      }
      size++;
    },
    get size() {
      return size;
    },
  };
}

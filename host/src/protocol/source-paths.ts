/**
 * The identity of each source document of a compile request: its path relative to the source
 * root, as MEP 0.1 defines it (Frontend compilation, `sources.root`). Pure string work, no I/O and
 * no `URL` (a wasm guest has none): hosts check a request before sending it, frontends key their
 * modules by it.
 *
 * The rules: a document under `root` (same scheme and authority) is identified by the rest of its
 * path; a relative document URI keeps its nesting; one absolute document without a root keeps its
 * base name, while several need the root. Query and fragment do not count. Path segments are
 * decoded once; dot segments, empty segments, encoded separators (`%2F`, `%5C`), malformed
 * escapes or UTF-8, paths outside the root and two documents with one identity are refused.
 * Absolute native paths (`/work/A.elm`, `C:\work\A.elm`) are read as `file:` paths.
 */
import { ErrorCode, MepError } from './errors.ts';
import type { CompileSources, SourceDocument } from './compile-params.ts';

/** A document and its identity (`/`-separated, decoded, relative to the root). */
export interface SourcePath {
  document: SourceDocument;
  /** E.g. `Acme/Orders/Orders.elm`. */
  path: string;
}

interface ParsedUri {
  /** Lower-cased `scheme://authority`; `file://` for native paths. */
  origin: string;
  /** The path, still encoded; absolute ones start with `/`. */
  path: string;
  absolute: boolean;
}

const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;

function refuse(message: string, data: Record<string, unknown>): never {
  throw new MepError(ErrorCode.InvalidParams, `Invalid params for morphir.frontend.compile: ${message}`, { data });
}

function parseUri(uri: string): ParsedUri {
  // A Windows drive path (`C:\x`, `C:/x`) would read as scheme `c:`: it is a native path.
  if (/^[A-Za-z]:[\\/]/.test(uri)) return { origin: 'file://', path: `/${uri.replace(/\\/g, '/')}`, absolute: true };
  const bare = uri.replace(/[?#].*$/s, '');
  const scheme = SCHEME.exec(bare)?.[0];
  if (scheme === undefined) return { origin: 'file://', path: bare, absolute: bare.startsWith('/') };
  let rest = bare.slice(scheme.length);
  let authority = '';
  if (rest.startsWith('//')) {
    const end = rest.indexOf('/', 2);
    authority = end < 0 ? rest.slice(2) : rest.slice(2, end);
    rest = end < 0 ? '' : rest.slice(end);
  }
  return { origin: `${scheme.toLowerCase()}//${authority.toLowerCase()}`, path: rest, absolute: true };
}

/** Decodes the segments of a relative path once, or says what is wrong with them. */
function decodeSegments(path: string): string[] | string {
  const segments = path.split('/');
  const out: string[] = [];
  for (const raw of segments) {
    if (raw === '') return 'it has an empty path segment';
    if (/%(2f|5c)/i.test(raw)) return `its segment '${raw}' encodes a path separator`;
    if (raw.includes('\\')) return `its segment '${raw}' contains a backslash; URIs separate segments with '/'`;
    let segment: string;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      return `its segment '${raw}' has a malformed escape or invalid UTF-8`;
    }
    if (segment === '.' || segment === '..') return `it has a dot segment '${raw}'`;
    out.push(segment);
  }
  return out;
}

/**
 * The identity of every document of `sources`, in their order. Throws MepError(-32602) naming
 * the document and the rule it breaks.
 *
 * @example
 * sourcePaths({ root: 'file:///work/src', documents })[0].path; // 'Acme/Orders.elm'
 */
export function sourcePaths(sources: CompileSources): SourcePath[] {
  const { documents } = sources;
  const root = sources.root === undefined ? undefined : parseUri(sources.root);
  if (root && !root.absolute) refuse(`sources.root '${sources.root}' is not an absolute URI; send the absolute URI of the source folder.`, { root: sources.root });
  const rootPath = root ? (root.path.endsWith('/') ? root.path : `${root.path}/`) : '';
  const absoluteCount = documents.filter((d) => parseUri(d.uri).absolute).length;
  if (!root && absoluteCount > 1) {
    refuse(`${absoluteCount} documents have absolute URIs but sources.root is missing; send the folder they share as sources.root.`, { documents: documents.length });
  }
  const seen = new Map<string, string>();
  return documents.map((document) => {
    const uri = parseUri(document.uri);
    let relative: string;
    if (!uri.absolute) relative = uri.path;
    else if (!root) relative = uri.path.slice(uri.path.lastIndexOf('/') + 1);
    else if (uri.origin !== root.origin || !uri.path.startsWith(rootPath)) {
      return refuse(`document ${document.uri} is not below sources.root ${sources.root}; every document must be inside the root (same scheme, authority and path prefix).`, {
        uri: document.uri,
        root: sources.root,
      });
    } else relative = uri.path.slice(rootPath.length);
    const segments = decodeSegments(relative);
    if (typeof segments === 'string') return refuse(`document ${document.uri} has no usable identity: ${segments}.`, { uri: document.uri });
    const path = segments.join('/');
    const other = seen.get(path);
    if (other !== undefined) refuse(`documents ${other} and ${document.uri} have the same identity '${path}'; send each source once.`, { uri: document.uri, other, path });
    seen.set(path, document.uri);
    return { document, path };
  });
}

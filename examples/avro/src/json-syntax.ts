/**
 * Deterministic JSON text: keys sorted recursively, two-space indentation, exactly one trailing
 * newline; plus artifact paths and the artifact list with its duplicate-path check.
 */
import { nameCollision } from './diagnostics.ts';
import type { FullName, JsonValue } from './model.ts';

/** A generated text artifact (MEP 0.1). */
export type Artifact = {
  path: string;
  content: string;
  binary: false;
};

/**
 * `value` with object keys sorted recursively. A part already in order is returned as is, not
 * copied: the renderers build their objects in key order, and copying every object of a large
 * schema tree was the main cost of rendering in QuickJS.
 */
export function sortKeys(value: JsonValue): JsonValue {
  if (Array.isArray(value)) {
    let out: JsonValue[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item = value[i];
      const sorted = item !== null && typeof item === 'object' ? sortKeys(item) : item;
      if (out !== undefined) out.push(sorted);
      else if (sorted !== item) (out = value.slice(0, i)).push(sorted);
    }
    return out ?? value;
  }
  if (value === null || typeof value !== 'object') return value;
  const keys = Object.keys(value);
  let ordered = true;
  for (let i = 1; i < keys.length && ordered; i++) ordered = keys[i - 1] < keys[i];
  let out: { [key: string]: JsonValue } | undefined;
  if (!ordered) {
    keys.sort();
    out = {};
  }
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    const item = value[key];
    const sorted = item !== null && typeof item === 'object' ? sortKeys(item) : item;
    if (out === undefined && sorted !== item) {
      // In order so far, but a value below changed: copy the keys before this one.
      out = {};
      for (let j = 0; j < i; j++) out[keys[j]] = value[keys[j]];
    }
    if (out !== undefined) out[key] = sorted;
  }
  return out ?? value;
}

/** Pretty JSON with recursively sorted keys and one trailing newline. */
export function canonicalJson(value: JsonValue): string {
  return `${JSON.stringify(sortKeys(value), null, 2)}\n`;
}

/**
 * {@link canonicalJson} of a value whose keys are sorted already, as JsonTypeRenderer builds
 * them: the same text without the walk that checks every object (a tenth of rendering a big
 * model in QuickJS).
 */
export function orderedJson(value: JsonValue): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** `<namespace segments>/<Name>.<extension>`. */
export function artifactPath(name: FullName, extension: string): string {
  const parts = name.namespace.split('.').filter((part) => part !== '');
  parts.push(name.name);
  return `${parts.join('/')}.${extension}`;
}

/** Where rendered artifacts go as they are made, instead of into a list (streamed to the host). */
export type ArtifactSink = (artifact: Artifact) => void;

/**
 * Collects artifacts, refusing a second artifact at the same path (AVRO003). With a sink each
 * artifact is handed over as soon as it is added and not kept: memory then holds one file.
 */
export class ArtifactList {
  readonly artifacts: Artifact[] = [];
  /** Every path added, in order. */
  readonly order: string[] = [];
  /** UTF-16 code units of content added. */
  chars = 0;
  private readonly paths = new Set<string>();

  constructor(private readonly sink?: ArtifactSink) {}

  /** Whether an artifact already claims `path`. */
  has(path: string): boolean {
    return this.paths.has(path);
  }

  /** Add a text artifact. */
  add(path: string, content: string): void {
    if (this.paths.has(path)) throw nameCollision(`duplicate artifact path ${path}`);
    this.paths.add(path);
    this.order.push(path);
    this.chars += content.length;
    const artifact: Artifact = { path, content, binary: false };
    if (this.sink) this.sink(artifact);
    else this.artifacts.push(artifact);
  }
}

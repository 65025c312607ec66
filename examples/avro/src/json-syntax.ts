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

function sortKeys(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  const out: { [key: string]: JsonValue } = {};
  for (const key of Object.keys(value).sort()) out[key] = sortKeys(value[key]);
  return out;
}

/** Pretty JSON with recursively sorted keys and one trailing newline. */
export function canonicalJson(value: JsonValue): string {
  return `${JSON.stringify(sortKeys(value), null, 2)}\n`;
}

/** `<namespace segments>/<Name>.<extension>`. */
export function artifactPath(name: FullName, extension: string): string {
  const parts = name.namespace.split('.').filter((part) => part !== '');
  parts.push(name.name);
  return `${parts.join('/')}.${extension}`;
}

/** Collects artifacts, refusing a second artifact at the same path (AVRO003). */
export class ArtifactList {
  readonly artifacts: Artifact[] = [];
  private readonly paths = new Set<string>();

  /** Whether an artifact already claims `path`. */
  has(path: string): boolean {
    return this.paths.has(path);
  }

  /** Add a text artifact. */
  add(path: string, content: string): void {
    if (this.paths.has(path)) throw nameCollision(`duplicate artifact path ${path}`);
    this.paths.add(path);
    this.artifacts.push({ path, content, binary: false });
  }
}

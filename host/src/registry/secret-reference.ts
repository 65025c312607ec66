/**
 * Secret references as manifests and configuration spell them: `env("NAME")` and
 * `file("path")` (MEP 0.1, Security and permissions). A reference names where a value lives,
 * never the value; it is compared exactly, character for character.
 */
import { parseJson } from '../protocol/json-parse.ts';

/** A parsed secret reference. */
export type SecretReference = { kind: 'env'; name: string } | { kind: 'file'; path: string };

const FORM = /^(env|file)\((".*")\)$/s;

/**
 * Parses `env("NAME")` or `file("path")` (the argument is a JSON string), or returns undefined
 * for anything else.
 *
 * @example
 * parseSecretReference('env("CRM_TOKEN")'); // { kind: 'env', name: 'CRM_TOKEN' }
 */
export function parseSecretReference(reference: string): SecretReference | undefined {
  const match = FORM.exec(reference);
  if (!match) return undefined;
  let argument: unknown;
  try {
    argument = parseJson(match[2] as string, 'data');
  } catch {
    return undefined;
  }
  if (typeof argument !== 'string' || argument.length === 0) return undefined;
  if (match[1] === 'env') return /^[A-Za-z_][A-Za-z0-9_]*$/.test(argument) ? { kind: 'env', name: argument } : undefined;
  return { kind: 'file', path: argument };
}

/** True when `reference` is a well-formed secret reference. */
export function isSecretReference(reference: string): boolean {
  return parseSecretReference(reference) !== undefined;
}

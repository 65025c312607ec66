/**
 * What a command needs from a provider, and whether a claim set meets it. MEP 0.1, Backend
 * capability: "The host selects a provider by target and input IR version before it sends a
 * request. It must not derive target support from the extension ID."
 */
import type { ClaimSet } from '../protocol/index.ts';

/** The capability a command needs. */
export type ProviderNeed =
  | { kind: 'backend'; /** Absent: any backend (`mep generate` without --target, when one is installed). */ target?: string; irVersion: string }
  | { kind: 'frontend'; /** Neither this nor fileExtension: a frontend of exactly one language (a project without --lang). */ language?: string; fileExtension?: string }
  | { kind: 'validator'; irVersion: string }
  | { kind: 'transform'; irVersion: string };

/** The outcome of matching one claim set against a need. */
export type NeedMatch =
  | { ok: true; /** The language id a frontend was chosen for. */ language?: string }
  | { ok: false; /** Set when the provider almost fits, saying what it offers instead. */ nearMiss?: string };

/** The need in words: "backend target 'avro' for Morphir IR 3". */
export function describeNeed(need: ProviderNeed): string {
  switch (need.kind) {
    case 'backend':
      return need.target === undefined ? `a backend for Morphir IR ${need.irVersion}` : `backend target '${need.target}' for Morphir IR ${need.irVersion}`;
    case 'frontend':
      return need.language ? `frontend for language '${need.language}'` : need.fileExtension !== undefined ? `frontend for '${need.fileExtension}' files` : 'a frontend (no --lang given)';
    case 'validator':
      return `validator for Morphir IR ${need.irVersion}`;
    case 'transform':
      return `transform for Morphir IR ${need.irVersion}`;
  }
}

function irNearMiss(what: string, versions: readonly string[] | undefined, wanted: string): NeedMatch {
  if (!versions || versions.includes(wanted)) return { ok: true };
  return { ok: false, nearMiss: `${what} for Morphir IR ${versions.join(', ') || 'no version'} only, not ${wanted}` };
}

/**
 * Whether `claims` meet `need`, read only from the claimed capabilities.
 *
 * @example
 * matchNeed(claims, { kind: 'backend', target: 'avro', irVersion: '3' }).ok;
 */
export function matchNeed(claims: ClaimSet, need: ProviderNeed): NeedMatch {
  const caps = claims.capabilities;
  switch (need.kind) {
    case 'backend': {
      const backend = caps.backend;
      if (!backend || backend.generate !== true || (need.target !== undefined && !backend.targets.includes(need.target))) return { ok: false };
      return irNearMiss(need.target === undefined ? `targets ${backend.targets.join(', ')}` : `target '${need.target}'`, backend.irVersions, need.irVersion);
    }
    case 'frontend': {
      const frontend = caps.frontend;
      if (!frontend || frontend.compile !== true) return { ok: false };
      if (need.language === undefined && need.fileExtension === undefined) {
        const [only, ...more] = frontend.languages;
        if (only !== undefined && more.length === 0) return { ok: true, language: only.id };
        return { ok: false, nearMiss: `the languages ${frontend.languages.map((l) => l.id).join(', ')} (pass --lang to choose one)` };
      }
      const language = need.language
        ? frontend.languages.find((l) => l.id === need.language)
        : frontend.languages.find((l) => need.fileExtension !== undefined && (l.fileExtensions ?? []).includes(need.fileExtension));
      return language ? { ok: true, language: language.id } : { ok: false };
    }
    case 'validator': {
      const validator = caps.validator;
      if (!validator || validator.validate === false) return { ok: false };
      return irNearMiss('validation', validator.irVersions, need.irVersion);
    }
    case 'transform': {
      const transform = caps.transform;
      if (!transform || transform.transform === false) return { ok: false };
      return irNearMiss('transforms', transform.irVersions, need.irVersion);
    }
  }
}

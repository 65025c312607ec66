/**
 * Capability metadata: the kinds an extension implements and the typed members of each.
 *
 * MEP 0.1, Capabilities are consulted, not remembered: the advertised set is the only authority.
 * Every object here is loose: members this reader does not know are kept and ignored, and kinds it
 * does not know are carried unchanged inside {@link Capabilities}.
 */
import * as z from 'zod';
import { NonEmptyString } from './json-value.ts';

/**
 * The capability kinds this reader knows (MEP 0.1 Capability methods, plus `workspace`, which the
 * Elm frontend claims for `morphir.workspace.discover`). A claim set naming another kind is refused.
 */
export const CAPABILITY_KINDS = ['frontend', 'backend', 'validator', 'transform', 'workspace'] as const;

/** One capability kind from {@link CAPABILITY_KINDS}. */
export const CapabilityKind = z.enum(CAPABILITY_KINDS);
/** One capability kind. */
export type CapabilityKind = z.infer<typeof CapabilityKind>;

/** A source language a frontend compiles: its language id and the file extensions it claims. */
export const FrontendLanguage = z.looseObject({
  id: NonEmptyString,
  fileExtensions: z.array(z.string()).optional(),
});
/** A source language a frontend compiles. */
export type FrontendLanguage = z.infer<typeof FrontendLanguage>;

/**
 * Frontend metadata. `compile`: accepts morphir.frontend.compile; `incremental`: accepts a
 * baseline and returns moduleResults; `fragments`: reserved, no meaning in 0.1 (never act on it);
 * `multiDocument`: one request may carry several documents (absent on the wire when false).
 */
export const FrontendCapability = z.looseObject({
  languages: z.array(FrontendLanguage),
  irVersions: z.array(z.string()),
  compile: z.boolean(),
  incremental: z.boolean(),
  fragments: z.boolean().optional(),
  multiDocument: z.boolean().optional(),
});
/** Frontend metadata. */
export type FrontendCapability = z.infer<typeof FrontendCapability>;

/**
 * Backend metadata: stable target ids for provider selection, the IR major versions it consumes,
 * and whether it accepts morphir.backend.generate.
 */
export const BackendCapability = z.looseObject({
  targets: z.array(NonEmptyString),
  irVersions: z.array(z.string()),
  generate: z.boolean(),
});
/** Backend metadata. */
export type BackendCapability = z.infer<typeof BackendCapability>;

/** Validator metadata (by analogy with backend): IR versions read, accepts morphir.validator.validate. */
export const ValidatorCapability = z.looseObject({
  irVersions: z.array(z.string()),
  validate: z.boolean(),
});
/** Validator metadata. */
export type ValidatorCapability = z.infer<typeof ValidatorCapability>;

/** Transform metadata (by analogy with backend): IR versions read, accepts morphir.transform.transform. */
export const TransformCapability = z.looseObject({
  irVersions: z.array(z.string()),
  transform: z.boolean(),
});
/** Transform metadata. */
export type TransformCapability = z.infer<typeof TransformCapability>;

/** Workspace discovery metadata, as the Elm frontend claims it (its own SemVer protocol line). */
export const WorkspaceCapability = z.looseObject({
  protocolVersions: z.array(z.string()).optional(),
  discover: z.boolean().optional(),
});
/** Workspace discovery metadata. */
export type WorkspaceCapability = z.infer<typeof WorkspaceCapability>;

/**
 * The capabilities of an initialize result, of morphir.extension.capabilities and of a claim set:
 * one member per kind, plus session features (`cancellation`, `progress`). Other members (e.g.
 * `streaming`) are carried unchanged.
 */
export const Capabilities = z.looseObject({
  frontend: FrontendCapability.optional(),
  backend: BackendCapability.optional(),
  validator: ValidatorCapability.optional(),
  transform: TransformCapability.optional(),
  workspace: WorkspaceCapability.optional(),
  cancellation: z.boolean().optional(),
  progress: z.boolean().optional(),
});
/** The capabilities an extension reports. */
export type Capabilities = z.infer<typeof Capabilities>;

/**
 * The capability kinds present in `capabilities`, in {@link CAPABILITY_KINDS} order. Other
 * members (session features, unknown entries) are not kinds.
 */
export function capabilityKindsOf(capabilities: Capabilities): CapabilityKind[] {
  return CAPABILITY_KINDS.filter((kind) => capabilities[kind] !== undefined);
}

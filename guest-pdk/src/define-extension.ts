/**
 * `defineExtension()`: the one place an author describes an extension. The initialize result,
 * `morphir.extension.capabilities`, `morphir.extension.describe` and `morphir_extension_info` are
 * all derived from this definition, so they always agree (MEP 0.1, When a session agrees with a
 * claim set).
 */
import { CLAIMS_VERSION, PROTOCOL_VERSIONS } from '../../host/src/protocol/index.ts';
import type { Capabilities, ClaimSet } from '../../host/src/protocol/index.ts';
import { checkDefinition } from './check-definition.ts';
import { DEFINITION_KINDS, type ExtensionDefinition } from './definition.ts';

/** A defined extension: the definition plus what is derived from it. Built by {@link defineExtension}. */
export interface Extension {
  readonly kind: 'mep-extension';
  readonly definition: ExtensionDefinition;
  /** The capabilities of every session (the PDK offers all it has). */
  readonly capabilities: Capabilities;
  /** The capability claim set (draft.2). */
  readonly claims: ClaimSet;
}

/**
 * Derives the wire capabilities from a definition. Cancellation is the author's word: the PDK
 * cannot tell whether a handler checks ctx.cancelled, and one that does not keeps working after
 * `$/cancelRequest` as a process (MEP 0.1: an extension "that advertises cancellation should stop
 * useful work"). Progress is offered always: an extension that advertises it "may send" reports.
 */
function capabilitiesOf(def: ExtensionDefinition): Capabilities {
  const caps: Capabilities = { cancellation: def.cancellation === true, progress: true };
  if (def.frontend) {
    const f = def.frontend;
    caps.frontend = { languages: f.languages, irVersions: f.irVersions, compile: true, incremental: f.incremental ?? false };
    // MEP 0.1: multiDocument "is absent from the wire when false".
    if (f.multiDocument) caps.frontend.multiDocument = true;
  }
  if (def.backend) caps.backend = { targets: def.backend.targets, irVersions: def.backend.irVersions, generate: true };
  if (def.validator) caps.validator = { irVersions: def.validator.irVersions, validate: true };
  if (def.transform) caps.transform = { irVersions: def.transform.irVersions, transform: true };
  return caps;
}

/**
 * Define an MEP extension. Export the result as the entry module's default export; `mep build`
 * binds it to the wasm or process runtime. A malformed definition (a missing or misspelt member,
 * a wrong type, no kind at all) throws MepError(ERR_USAGE, `data.reason: 'bad-definition'`)
 * naming each member and what it expects (`data.problems`).
 *
 * @example
 * export default defineExtension({
 *   info: { id: 'acme.hello', name: 'Hello backend', version: '1.0.0' },
 *   backend: { targets: ['hello'], irVersions: ['3'], generate: () => ({ artifacts: [textArtifact('hello.txt', 'hi\n')] }) },
 * });
 */
export function defineExtension(candidate: ExtensionDefinition): Extension {
  // Checked once, here: in wasm before the snapshot (so `mep build` names the entry's line), in
  // a process at start-up, never as a host refusing the initialize result of a session.
  const definition = checkDefinition(candidate);
  const { info } = definition;
  const kinds = DEFINITION_KINDS.filter((k) => definition[k] !== undefined);
  const capabilities = capabilitiesOf(definition);
  const claims: ClaimSet = {
    claimsVersion: CLAIMS_VERSION,
    protocolVersions: [...PROTOCOL_VERSIONS],
    extension: { id: info.id, name: info.name, version: info.version, types: [...kinds] },
    capabilities,
  };
  if (definition.requiresHost && definition.requiresHost.length > 0) {
    claims.requires = { host: [...definition.requiresHost] };
    // MEP 0.1, Compatibility rules: an extension that needs a newer host lists it in critical.
    claims.critical = ['requires.host'];
  }
  return { kind: 'mep-extension', definition, capabilities, claims };
}

/** True for a value built by {@link defineExtension} (also across bundles). */
export function isExtension(value: unknown): value is Extension {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'mep-extension';
}

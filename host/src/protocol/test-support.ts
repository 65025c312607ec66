/**
 * Builders shared by the protocol tests: a valid initialize result and its matching claim set,
 * copied from the morphir-elm MEP extension (finos/morphir-elm cli2/mep, version 0.3.0).
 */
import type { ClaimSet } from './claim-set.ts';
import type { InitializeResult } from './initialize.ts';

/** A fresh initialize result of the morphir-elm frontend. */
export function elmInitializeResult(): InitializeResult {
  return {
    protocolVersion: '0.1',
    extension: { id: 'morphir-elm', name: 'Morphir Elm frontend', version: '0.3.0', types: ['frontend', 'workspace'] },
    capabilities: {
      frontend: { languages: [{ id: 'elm', fileExtensions: ['.elm'] }], irVersions: ['3'], compile: true, incremental: false, fragments: false, multiDocument: false },
      workspace: { protocolVersions: ['0.1.0-draft.1'], discover: true },
      streaming: false,
      incremental: false,
      cancellation: false,
      progress: false,
    },
  };
}

/** A fresh draft.2 claim set that agrees with {@link elmInitializeResult}. */
export function elmClaimSet(): ClaimSet {
  const init = elmInitializeResult();
  return {
    claimsVersion: '0.1.0-draft.2',
    protocolVersions: ['0.1'],
    extension: { id: 'morphir-elm', name: 'Morphir Elm frontend', version: '0.3.0', types: ['frontend', 'workspace'] },
    capabilities: init.capabilities,
    requires: { host: ['>=0.4.0-alpha.7'] },
    critical: ['requires.host'],
  };
}

/**
 * Opening a session, MEP 0.1 Lifecycle steps 1–4: check a pinned claim set's host requirement,
 * send `morphir.initialize`, validate the selected protocol version and the result's agreement
 * with the claim set, then `morphir.initialized`. Any failure fails the session and closes the
 * transport, so nothing of a session that never opened is left running.
 */
import { InitializeResult, Method, checkAgreement, checkHostRequirement, decodeResult } from '../protocol/index.ts';
import { ErrorCode, LocalErrorCode, MepError } from '../protocol/errors.ts';
import { checkMetadataBounds } from '../protocol/metadata-bounds.ts';
import type { SessionCore } from './session-core.ts';
import { SessionState } from './state.ts';

/** initialize → validate → initialized; resolves with the negotiated result. */
export async function openSession(core: SessionCore): Promise<InitializeResult> {
  const { lifecycle, transport, host, offered, claims } = core;
  lifecycle.require('initialize', SessionState.Starting);
  if (claims) {
    const verdict = checkHostRequirement(claims, host.version);
    if (!verdict.ok) {
      lifecycle.fail();
      await transport.close();
      throw new MepError(LocalErrorCode.HostVersion, `${verdict.message} Upgrade mep-runtime or pick another version of the extension.`, {
        data: { extension: claims.extension.id, range: verdict.range, hostVersion: host.version },
      });
    }
  }
  lifecycle.moveTo(SessionState.Initializing);
  try {
    const raw = await core.call(Method.Initialize, {
      protocolVersions: offered,
      host,
      ...(core.workspace ? { workspace: core.workspace } : {}),
      // artifactStream: this host takes morphir.backend.artifact (session/artifact-stream.ts).
      capabilities: { cancellation: true, progress: true, artifactStream: true },
      permissions: core.permissions,
    });
    // Kept for the session and echoed to a mep serve client: bounded before it is read.
    const result = decodeResult(InitializeResult, checkMetadataBounds(raw, 'The initialize result', core.extension), `the initialize result from '${core.extension}'`) as InitializeResult;
    core.extension = result.extension.id;
    negotiate(core, result);
    core.init = result;
    core.peer.notify(Method.Initialized, {});
    lifecycle.moveTo(SessionState.Ready);
    return result;
  } catch (error) {
    lifecycle.fail();
    await transport.close();
    throw error;
  }
}

/** MEP 0.1, Lifecycle step 3: validate the selected protocol version and the claim set. */
function negotiate(core: SessionCore, result: InitializeResult): void {
  const extension = core.extension;
  if (!core.offered.includes(result.protocolVersion)) {
    throw new MepError(ErrorCode.ProtocolVersionMismatch, `Extension '${extension}' selected protocol version '${result.protocolVersion}', which this host did not offer (${core.offered.join(', ')}).`, {
      data: { hostVersions: core.offered, extensionVersions: [result.protocolVersion] },
    });
  }
  if (core.claims) {
    const agreement = checkAgreement(result, core.claims);
    if (!agreement.ok) {
      throw new MepError(LocalErrorCode.ClaimsMismatch, `Extension '${extension}' disagrees with its claim set (rule ${agreement.rule}): ${agreement.message}`, {
        // What it reported, so a caller that pinned an identity (an installed remote) can say which changed.
        data: { extension, rule: agreement.rule, reported: { id: result.extension.id, version: result.extension.version } },
      });
    }
  }
}

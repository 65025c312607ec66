/**
 * Ending a session, MEP 0.1 Lifecycle steps 6–7: `shutdown` (wait for its response, then
 * `morphir.exit`, then close the transport) and `close` (end whatever the state: graceful when
 * ready, `exit` for a describe-only conversation, otherwise just close). An extension that stops
 * before answering shutdown is an extension failure.
 */
import { Method } from '../protocol/index.ts';
import { ErrorCode, LocalErrorCode, MepError, isMepError } from '../protocol/errors.ts';
import type { SessionCore } from './session-core.ts';
import { SessionState } from './state.ts';

/** `shutdown()` and `close()` of one session. */
export interface SessionClosing {
  shutdown(): Promise<void>;
  close(): Promise<void>;
}

/** The ways the session `core` ends. */
export function sessionClosing(core: SessionCore): SessionClosing {
  const { lifecycle, transport, peer } = core;
  let closing: Promise<void> | undefined;

  function trySendExit(): void {
    try {
      peer.notify(Method.Exit, {});
    } catch {
      // The transport is already closed: there is nobody left to tell, and close() follows.
    }
  }

  async function shutdown(): Promise<void> {
    lifecycle.require('shut down', SessionState.Ready);
    lifecycle.moveTo(SessionState.Stopping);
    try {
      await core.call(Method.Shutdown, {}, {}, core.shutdownTimeoutMs);
    } catch (error) {
      lifecycle.fail();
      await transport.close();
      if (isMepError(error) && (error.code === LocalErrorCode.TransportClosed || error.code === LocalErrorCode.ExtensionCrashed)) {
        // MEP 0.1, Lifecycle: exiting before the shutdown response is an extension failure.
        throw new MepError(ErrorCode.ExtensionFailure, `Extension '${core.extension}' stopped before answering morphir.shutdown.`, { cause: error, data: { extension: core.extension } });
      }
      throw error;
    }
    trySendExit();
    await transport.close();
    if (!lifecycle.isTerminal) lifecycle.moveTo(SessionState.Stopped);
  }

  function close(): Promise<void> {
    closing ??= (async () => {
      if (lifecycle.state === SessionState.Ready) {
        try {
          await shutdown();
          return;
        } catch {
          // Shutdown failed: the session is failed and the transport closed; close() still ends quietly.
        }
      } else if (lifecycle.state === SessionState.Starting) {
        // MEP 0.1, Capability claims: a describe-only conversation ends with morphir.exit.
        trySendExit();
        lifecycle.moveTo(SessionState.Stopping);
      }
      await transport.close();
      peer.close();
      if (!lifecycle.isTerminal) lifecycle.moveTo(SessionState.Stopped);
    })();
    return closing;
  }

  return { shutdown, close };
}

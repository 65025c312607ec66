/**
 * Reads an extension's capability claim set the way MEP 0.1 prescribes (Capability claims,
 * morphir.extension.describe): describe first, and when the extension does not implement it
 * (-32601, or -32014 because it was asked before initialize), through a full session instead.
 */
import { claimSetFromSession, parseClaimSet } from '../protocol/index.ts';
import type { ClaimSet } from '../protocol/index.ts';
import { ErrorCode, isMepError } from '../protocol/errors.ts';
import { createSession } from './session.ts';
import type { SessionOptions } from './types.ts';

/** How a claim set was obtained. */
export type ClaimSource = 'describe' | 'session';

/** A claim set and how it was read. */
export interface ClaimReading {
  claims: ClaimSet;
  source: ClaimSource;
}

/**
 * Old extensions refused describe-before-initialize with another code; the spec lets a host
 * recognise that refusal by its message, and forbids falling back on any other error.
 */
function isNotInitializedRefusal(error: unknown): boolean {
  if (!isMepError(error)) return false;
  if (error.code === ErrorCode.MethodNotFound || error.code === ErrorCode.NotInitialized) return true;
  return typeof error.code === 'number' && /not initiali[sz]ed/i.test(error.message);
}

/**
 * Read the claim set over `options.transport`, then end the conversation (exit, or
 * shutdown + exit after a fallback session) and close the transport.
 *
 * @example
 * const { claims } = await readClaimSet({ transport: await openTransport() });
 */
export async function readClaimSet(options: SessionOptions): Promise<ClaimReading> {
  const session = createSession({ ...options, claims: undefined });
  try {
    try {
      const raw = await session.describe();
      return { claims: parseClaimSet(raw), source: 'describe' };
    } catch (error) {
      if (!isNotInitializedRefusal(error)) throw error;
    }
    const init = await session.start();
    const capabilities = await session.capabilities();
    return { claims: claimSetFromSession({ ...init, capabilities }), source: 'session' };
  } finally {
    await session.close();
  }
}

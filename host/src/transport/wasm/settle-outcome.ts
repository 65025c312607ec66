/**
 * Settling one finished guest call: its {@link RunOutcome} becomes the response to emit, an
 * answer the host gives for the guest (cancelled, guest-reported error), a logged failure of a
 * notification, or a typed failure that closes the transport (deadline, trap, protocol breach).
 */
import { LocalErrorCode, MepError } from '../../protocol/errors.ts';
import type { JsonRpcMessage, LogSink } from '../types.ts';
import { ranPastDeadline, type RunOutcome } from './engine.ts';
import type { GuestMessages, Id } from './guest-messages.ts';
import { raiseAdvice } from '../../protocol/limits.ts';
import type { WasmLimits } from './limits.ts';
import { SLICED_FROM_CHARS } from '../../protocol/json-sliced.ts';

/** What the settler needs from its transport. */
export interface SettleContext {
  name: string;
  limits: WasmLimits;
  log?: LogSink;
  messages: GuestMessages;
  emit(message: JsonRpcMessage): void;
  /** Closes the transport with `error`. */
  fail(error: MepError): void;
}

/**
 * Settles the outcome of the call for message `id` (undefined for a notification); a large
 * answer is parsed in slices, and the promise then returned resolves once it is settled (the
 * next call waits for it, so answers keep their order).
 */
export type SettleOutcome = (id: Id | undefined, outcome: RunOutcome, cancelled: boolean) => void | Promise<void>;

/** `decoded` when it is the response to request `id`, else the protocol error saying what it is instead. */
function answer(messages: GuestMessages, id: Id, decoded: JsonRpcMessage): JsonRpcMessage {
  if ('method' in decoded || !('result' in decoded || 'error' in decoded)) {
    throw messages.protocolError(`its answer to request ${JSON.stringify(id)} is not a response`, { id });
  }
  if (decoded.id !== id) {
    throw messages.protocolError(`it answered request ${JSON.stringify(id)} with id ${JSON.stringify(decoded.id)}`, { id, responseId: decoded.id });
  }
  return decoded;
}

/**
 * A call whose answer could not be read: a cancelled guest may stop without a proper answer (the
 * host answers for it); otherwise the transport closes with the error. Module functions rather
 * than closures per call (under tsx, each named closure also costs a defineProperty).
 */
function refuse(context: SettleContext, id: Id, cancelled: boolean, error: unknown): void {
  if (cancelled) context.emit(context.messages.cancelled(id));
  else context.fail(error as MepError);
}

/** Creates the settler of one transport. */
export function createOutcomeSettler(context: SettleContext): SettleOutcome {
  const { name, limits, log, messages, emit, fail } = context;
  return (id, outcome, cancelled) => {
    const timedOut = ranPastDeadline(outcome.interrupt, outcome.elapsedMs, limits.callTimeoutMs);
    if (timedOut && !(cancelled && outcome.ok)) {
      fail(new MepError(LocalErrorCode.Timeout, `Wasm extension "${name}" did not finish ${id === undefined ? 'a notification' : `request ${JSON.stringify(id)}`} within ${limits.callTimeoutMs} ms and was stopped. ${raiseAdvice('callTimeoutMs', limits.callTimeoutMs)}`, {
        data: { extension: name, id, timeoutMs: limits.callTimeoutMs, limit: 'callTimeoutMs' },
      }));
      return;
    }
    if (!outcome.ok) {
      const error = new MepError(outcome.error.code, outcome.error.message, { data: outcome.error.data });
      if (outcome.guestError) {
        // The guest reported the failure itself (error_set): its instance is sound, answer and go on.
        if (id === undefined) log?.({ level: 'error', message: error.message, source: name });
        else if (cancelled) emit(messages.cancelled(id));
        else emit({ jsonrpc: '2.0', id, error: error.toJSON() });
        return;
      }
      if (cancelled && id !== undefined) emit(messages.cancelled(id));
      fail(error);
      return;
    }
    if (id === undefined) {
      if (outcome.output !== null) fail(messages.protocolError('it answered a message that was not a request', { size: outcome.output.length }));
      return;
    }
    const output = outcome.output;
    if (output !== null && output.length >= SLICED_FROM_CHARS) {
      // A large answer (millions of values) in slices: the event loop of every other session turns meanwhile.
      return messages.decodeSliced(output, 'response').then((decoded) => emit(answer(messages, id, decoded))).catch((error: unknown) => refuse(context, id, cancelled, error));
    }
    let response: JsonRpcMessage;
    try {
      if (output === null) throw messages.protocolError(`it returned no response to request ${JSON.stringify(id)}`, { id });
      response = answer(messages, id, messages.decode(output, 'response'));
    } catch (error) {
      refuse(context, id, cancelled, error);
      return;
    }
    emit(response);
  };
}

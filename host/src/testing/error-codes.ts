/** The codes of errors a test expects (test support): tests assert on codes, never on messages. */
import { isMepError } from '../protocol/errors.ts';

/** The `code` of the MepError `fn` throws, the error itself when it is no MepError, or undefined when `fn` returns. */
export function thrownCode(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return isMepError(error) ? error.code : error;
  }
  return undefined;
}

/** The `code` of the MepError `promise` rejects with, the reason itself when it is none, or undefined when it resolves. */
export async function rejectionCode(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (error: unknown) => (isMepError(error) ? error.code : error),
  );
}

/** The error of the host's JSON readers. No I/O. */

/** Why a text is not JSON, with where. */
export class JsonTextError extends SyntaxError {
  override readonly name: string = 'JsonTextError';
  constructor(
    message: string,
    /** Offset in the text (UTF-16 code units) where the problem was found. */
    readonly position: number,
  ) {
    super(message);
  }
}

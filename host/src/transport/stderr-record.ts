/**
 * What a process transport keeps of an extension's stderr for its crash report: the first lines
 * and the last ones, a bounded amount of each. The tail holds what a long-running process printed
 * last. The head holds what a process that died at start-up printed first: Node's line naming the
 * exception above its stack, which the members of the error (`code`, `data`, which Node prints
 * after the stack) would push out of a tail alone.
 */

/** The kept lines of a stream of log lines. */
export interface StderrRecord {
  /** Records one line. */
  push(line: string): void;
  /** The kept lines in order: the head, a marker naming how many lines were dropped, if any, and the tail. */
  lines(): string[];
  /** The last `count` lines recorded (at most the tail's size). */
  last(count: number): string[];
  /** How many lines were recorded in all. */
  readonly total: number;
}

/** Options of {@link createStderrRecord}. */
export interface StderrRecordOptions {
  /** Lines kept from the start. Default 20. */
  head?: number;
  /** Lines kept from the end. Default 20. */
  tail?: number;
}

/**
 * Creates an empty record.
 *
 * @example
 * const stderr = createStderrRecord();
 * lines.push(chunk).forEach((line) => stderr.push(line));
 * new MepError(LocalErrorCode.ExtensionCrashed, '…', { data: { stderr: stderr.lines() } });
 */
export function createStderrRecord(options: StderrRecordOptions = {}): StderrRecord {
  const headSize = options.head ?? 20;
  const tailSize = options.tail ?? 20;
  const head: string[] = [];
  const tail: string[] = [];
  let total = 0;
  return {
    push(line) {
      total++;
      if (head.length < headSize) {
        head.push(line);
        return;
      }
      tail.push(line);
      if (tail.length > tailSize) tail.shift();
    },
    lines() {
      const dropped = total - head.length - tail.length;
      return dropped > 0 ? [...head, `… (${dropped} more line${dropped === 1 ? '' : 's'} not kept)`, ...tail] : [...head, ...tail];
    },
    last(count) {
      return [...head, ...tail].slice(-Math.min(count, tailSize));
    },
    get total() {
      return total;
    },
  };
}

/**
 * The session lifecycle of MEP 0.1 (Lifecycle: starting -> initializing -> ready -> stopping ->
 * stopped), plus `failed` for a session that can no longer be used.
 */
import { LocalErrorCode, MepError } from '../protocol/errors.ts';

/** Every state a session can be in. */
export const SessionState = {
  Starting: 'starting',
  Initializing: 'initializing',
  Ready: 'ready',
  Stopping: 'stopping',
  Stopped: 'stopped',
  Failed: 'failed',
} as const;

/** One value of {@link SessionState}. */
export type SessionStateValue = (typeof SessionState)[keyof typeof SessionState];

const allowed: Record<SessionStateValue, readonly SessionStateValue[]> = {
  starting: ['initializing', 'stopping', 'stopped', 'failed'],
  initializing: ['ready', 'stopping', 'stopped', 'failed'],
  ready: ['stopping', 'stopped', 'failed'],
  stopping: ['stopped', 'failed'],
  stopped: [],
  failed: [],
};

/** True when the lifecycle allows moving from `from` to `to`. */
export function canTransition(from: SessionStateValue, to: SessionStateValue): boolean {
  return allowed[from].includes(to);
}

/**
 * A small state holder that refuses illegal transitions and tells listeners about legal ones.
 * Terminal states (`stopped`, `failed`) never change again.
 */
export class Lifecycle {
  #state: SessionStateValue = SessionState.Starting;
  readonly #listeners = new Set<(state: SessionStateValue, previous: SessionStateValue) => void>();

  constructor(private readonly extension: string) {}

  /** The current state. */
  get state(): SessionStateValue {
    return this.#state;
  }

  /** True once the session reached `stopped` or `failed`. */
  get isTerminal(): boolean {
    return this.#state === SessionState.Stopped || this.#state === SessionState.Failed;
  }

  /** Move to `to`; throws ERR_SESSION_STATE when the lifecycle forbids it. */
  moveTo(to: SessionStateValue): void {
    if (this.#state === to) return;
    if (!canTransition(this.#state, to)) {
      throw new MepError(
        LocalErrorCode.SessionState,
        `Session with extension '${this.extension}' cannot go from '${this.#state}' to '${to}'.`,
        { data: { extension: this.extension, from: this.#state, to } },
      );
    }
    const previous = this.#state;
    this.#state = to;
    for (const listener of [...this.#listeners]) listener(to, previous);
  }

  /** Move to `failed` unless already terminal (a failure after stop changes nothing). */
  fail(): void {
    if (!this.isTerminal) this.moveTo(SessionState.Failed);
  }

  /** Throws ERR_SESSION_STATE naming `what` unless the state is one of `states`. */
  require(what: string, ...states: SessionStateValue[]): void {
    if (states.includes(this.#state)) return;
    throw new MepError(
      LocalErrorCode.SessionState,
      `Cannot ${what}: the session with extension '${this.extension}' is '${this.#state}' (needs ${states.join(' or ')}).`,
      { data: { extension: this.extension, state: this.#state, allowed: states } },
    );
  }

  /** Listen for transitions; returns a disposer. */
  onChange(listener: (state: SessionStateValue, previous: SessionStateValue) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}

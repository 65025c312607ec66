/**
 * One run at a time, and one more after it for every burst of requests that came meanwhile: what
 * `mep build --watch` and `mep compile --watch` do on save. `rebuild()` starts a run, or marks the
 * running one to be followed by another; it resolves when no run is pending. `idle()` waits for
 * the run in flight, if any (e.g. before exiting on Ctrl+C).
 */
export interface Rerunner {
  rebuild(): Promise<void>;
  idle(): Promise<void>;
}

/** A {@link Rerunner} of `once`, which stops following up once `signal` aborts. */
export function createRerunner(once: () => Promise<void>, signal: AbortSignal): Rerunner {
  let running: Promise<void> | undefined;
  let again = false;
  return {
    rebuild() {
      if (running) {
        again = true;
        return running;
      }
      running = (async () => {
        do {
          again = false;
          await once();
        } while (again && !signal.aborted);
        running = undefined;
      })();
      return running;
    },
    idle: async () => {
      await running;
    },
  };
}

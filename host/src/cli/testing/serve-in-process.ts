/**
 * Test support: `mep serve` run in this process (no child to start), with its stderr captured,
 * until it prints where it listens; stopped the way a service manager stops it.
 */
import { captureIo } from '../io.ts';
import { main } from '../main.ts';

/** A running `mep serve`; see {@link startServe}. */
export interface ServeInProcess {
  /** What it printed after "listening on" (the URL, or the socket path). */
  address: string;
  /** Its stderr so far, one string. */
  stderr(): string;
  /** SIGTERM it (its own handler runs) and resolve with its exit code. */
  stop(): Promise<number>;
}

/**
 * Starts `mep serve <args> --verbose` in `cwd`; rejects with its stderr when it ends before it
 * listens (a refused flag, a taken address).
 */
export async function startServe(args: string[], cwd: string): Promise<ServeInProcess> {
  const io = captureIo(cwd);
  const served = main(['serve', ...args, '--verbose'], io);
  let code: number | undefined;
  void served.then((c) => (code = c));
  const stderr = (): string => io.stderr.join('\n');
  let address: string | undefined;
  while (!(address = /listening on (\S+)/.exec(stderr())?.[1])) {
    if (code !== undefined) throw Object.assign(new Error(`mep serve ended (${code}) before listening: ${stderr()}`), { code, stderr: stderr() });
    await new Promise((r) => setTimeout(r, 10));
  }
  return {
    address,
    stderr,
    stop: () => {
      process.emit('SIGTERM');
      return served;
    },
  };
}

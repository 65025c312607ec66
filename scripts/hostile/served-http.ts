/**
 * `mep serve --http` as a process of its own for the long hostile runs: started on a free port,
 * its peak RSS sampled (VmHWM) until it is stopped, waited for until /health answers.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** A running server; see {@link startServedHttp}. */
export interface ServedHttp {
  readonly port: number;
  /** The highest RSS sampled so far, in bytes. */
  peakRss(): number;
  /** Its exit code once it exited (128 for a signal), else null. */
  exitCode(): number | null;
  /** True when /health answers 2xx. */
  health(): Promise<boolean>;
  /** SIGTERM, then SIGKILL after 5 s; stops sampling. */
  stop(): Promise<void>;
}

/** Starts `node <bin> serve --http 127.0.0.1:<port> …args` and resolves once it answers /health (or 20 s pass). */
export async function startServedHttp(bin: string, args: readonly string[]): Promise<ServedHttp> {
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const server = spawn(process.execPath, [bin, 'serve', '--http', `127.0.0.1:${port}`, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  let exitCode: number | null = null;
  const exited = new Promise<void>((resolve) => server.on('exit', (code, signal) => ((exitCode = code ?? (signal ? 128 : null)), resolve())));
  server.stderr?.resume();
  let peak = 0;
  const sampler = setInterval(() => {
    try {
      peak = Math.max(peak, 1024 * Number(/^VmHWM:\s+(\d+)/m.exec(readFileSync(`/proc/${server.pid}/status`, 'utf8'))?.[1] ?? 0));
    } catch {
      // Exited between two samples.
    }
  }, 50);
  const health = async (): Promise<boolean> => fetch(`http://127.0.0.1:${port}/health`).then((r) => r.ok, () => false);
  for (let i = 0; i < 200 && !(await health()); i++) await new Promise((resolve) => setTimeout(resolve, 100));
  return {
    port,
    peakRss: () => peak,
    exitCode: () => exitCode,
    health,
    async stop() {
      clearInterval(sampler);
      server.kill('SIGTERM');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
      if (exitCode === null) server.kill('SIGKILL');
    },
  };
}

/**
 * Starts `served-host.ts` as a child process (with `--expose-gc`) on a fresh Unix socket and
 * asks it for memory samples; the soak's clients connect to `path`.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FromServedHost, ServerSample } from './served-host.ts';

/** A served host in a child process; see {@link startServedHost}. */
export interface ServedHostHandle {
  /** The Unix socket it listens on. */
  readonly path: string;
  readonly pid: number;
  /** Memory and live resources of the server, after a forced GC unless `gc` is false. */
  measure(gc?: boolean): Promise<ServerSample>;
  /** Stop the server (SIGKILL after 5 s) and remove its directory. */
  close(): Promise<void>;
}

const entry = fileURLToPath(new URL('./served-host.ts', import.meta.url));

/** Forks the served host; `options` are passed to createHostServer (limits). */
export async function startServedHost(options: Record<string, unknown> = {}): Promise<ServedHostHandle> {
  const dir = mkdtempSync(join(tmpdir(), 'mep-soak-'));
  const path = join(dir, 'mep.sock');
  const child: ChildProcess = fork(entry, [path, JSON.stringify(options)], {
    execArgv: ['--expose-gc', '--disable-warning=ExperimentalWarning', '--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-8_192)));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const waiting = new Map<number, (sample: ServerSample) => void>();
  let nextId = 1;
  await new Promise<void>((resolve, reject) => {
    child.on('message', (message: FromServedHost) => {
      if (message.type === 'listening') resolve();
      else if (message.type === 'sample') waiting.get(message.id)?.(message.sample);
    });
    void exited.then((code) => reject(new Error(`the served host exited (${code}) before listening: ${stderr}`)));
  });
  return {
    path,
    pid: child.pid as number,
    measure(gc = true) {
      const id = nextId++;
      return new Promise<ServerSample>((resolve, reject) => {
        waiting.set(id, (sample) => (waiting.delete(id), resolve(sample)));
        void exited.then((code) => reject(new Error(`the served host exited (${code}) while measuring: ${stderr}`)));
        child.send({ type: 'measure', id, gc });
      });
    },
    async close() {
      if (child.exitCode === null && child.signalCode === null) {
        child.disconnect();
        const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        await exited;
        clearTimeout(timer);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

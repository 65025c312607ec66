/**
 * Test support: a `mep <command> … --watch` child whose output lines can be awaited, for the
 * tests of `mep build --watch` and `mep compile --watch`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const mepBin = join(fileURLToPath(new URL('../../../../', import.meta.url)), 'bin/mep.mjs');

/** A running watcher: its lines (tagged `out ` or `err `), its exit, and the next line to match. */
export interface WatchChild {
  child: ChildProcess;
  lines: string[];
  exited: Promise<number | null>;
  /** The next line (after those seen so far) matching `test`; rejects if the watcher exits first. */
  next(test: RegExp): Promise<string>;
}

/** Starts `mep <command> <args…> --watch` in `cwd` (without the test runner's NODE_OPTIONS). */
export function startWatch(command: 'build' | 'compile', cwd: string, args: string[]): WatchChild {
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  const child = spawn(process.execPath, [mepBin, command, ...args, '--watch'], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  const waiters: { test: RegExp; from: number; resolve(line: string): void; reject(error: Error): void }[] = [];
  const feed = (stream: NodeJS.ReadableStream, tag: string) => {
    let rest = '';
    stream.on('data', (chunk: Buffer) => {
      const parts = (rest + chunk.toString('utf8')).split('\n');
      rest = parts.pop() ?? '';
      for (const part of parts) {
        lines.push(`${tag} ${part}`);
        for (const w of [...waiters]) {
          if (lines.length - 1 >= w.from && w.test.test(`${tag} ${part}`)) {
            waiters.splice(waiters.indexOf(w), 1);
            w.resolve(part);
          }
        }
      }
    });
  };
  feed(child.stdout!, 'out');
  feed(child.stderr!, 'err');
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      // A watcher that died early fails the awaited step instead of leaving it waiting.
      for (const w of waiters.splice(0)) w.reject(new Error(`mep ${command} --watch exited (${code}) before printing ${w.test}:\n${lines.join('\n')}`));
      resolve(code);
    }),
  );
  return {
    child,
    lines,
    exited,
    next(test) {
      const from = lines.length;
      return new Promise((resolve, reject) => waiters.push({ test, from, resolve, reject }));
    },
  };
}

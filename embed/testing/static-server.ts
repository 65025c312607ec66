/**
 * Test support: a loopback HTTP server for a folder, with the cross-origin isolation headers
 * worker isolation needs (SharedArrayBuffer). Port 0: the system picks a free port.
 */
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize } from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.map': 'application/json',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
};

/** A running server; `close()` stops it and drops open connections. */
export interface StaticServer {
  readonly url: string;
  close(): Promise<void>;
}

/** Serves the files of `dir` on 127.0.0.1. */
export async function serveStatic(dir: string): Promise<StaticServer> {
  const server = createServer(async (request, response) => {
    const requested = normalize(decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname)).replace(/^(\.\.[/\\])+/, '');
    const path = requested.endsWith('/') ? `${requested}index.html` : requested;
    try {
      const body = await readFile(join(dir, path));
      response.writeHead(200, {
        'content-type': TYPES[extname(path)] ?? 'application/octet-stream',
        'cross-origin-opener-policy': 'same-origin',
        'cross-origin-embedder-policy': 'require-corp',
        'cache-control': 'no-store',
      });
      response.end(body);
    } catch {
      response.writeHead(404).end('not found');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

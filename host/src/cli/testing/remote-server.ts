/**
 * Test support: a JSON-RPC server over HTTP that is not ours, the way the reference host's test
 * fixture behaves (every POST answered alone, ids echoed, errors as HTTP 200), and a package
 * directory that installs it as a `runtime: "http"` extension.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseJson } from '../../protocol/json-parse.ts';

/** A running remote; see {@link startRemote}. */
export interface TestRemote {
  url: string;
  /** What it reports: `acme.remote` at `version` (change it to play an upgraded server). */
  state: { version: string; token?: string; echoOnDescribe?: boolean };
  /** The Authorization header of every POST, in order. */
  authorizations: (string | undefined)[];
  close(): Promise<void>;
}

/**
 * Starts the remote on a free loopback port. With `state.token` set, a POST without
 * `Authorization: Bearer <token>` gets 401. The method `acme.echo-authorization` is refused with
 * an error whose message carries the Authorization header (a careless server), so a test can see
 * that a client does not print it; so is `morphir.extension.describe` while `state.echoOnDescribe`
 * (otherwise it answers the claim set).
 */
export async function startRemote(options: { token?: string } = {}): Promise<TestRemote> {
  const state: TestRemote['state'] = { version: '1.0.0', ...(options.token ? { token: options.token } : {}) };
  const authorizations: (string | undefined)[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      authorizations.push(req.headers.authorization);
      if (state.token && req.headers.authorization !== `Bearer ${state.token}`) return void res.writeHead(401).end();
      const request = parseJson(body) as { id: unknown; method: string; params?: { ir?: unknown } };
      const answer = (member: object): void => void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: request.id, ...member }));
      const extension = { id: 'acme.remote', name: 'Remote echo', version: state.version };
      const capabilities = { backend: { targets: ['echo'], irVersions: ['3'], generate: true } };
      switch (request.method) {
        case 'morphir.initialize':
          return answer({ result: { protocolVersion: '0.1', extension, capabilities } });
        case 'morphir.backend.generate':
          return answer({ result: { success: true, artifacts: [{ path: 'echo/remote.json', content: JSON.stringify(request.params?.ir), binary: false }], diagnostics: [] } });
        case 'morphir.ping':
        case 'morphir.shutdown':
          return answer({ result: null });
        case 'morphir.extension.capabilities':
          return answer({ result: capabilities });
        case 'morphir.extension.describe':
          if (state.echoOnDescribe) return answer({ error: { code: -32000, message: `not allowed for ${req.headers.authorization}` } });
          return answer({ result: { claimsVersion: '0.1.0-draft.2', protocolVersions: ['0.1'], extension: { ...extension, types: ['backend'] }, capabilities } });
        case 'acme.echo-authorization':
          return answer({ error: { code: -32000, message: `not allowed for ${req.headers.authorization}` } });
        default:
          return answer({ error: { code: -32601, message: `Method not found: ${request.method}` } });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/mep`, state, authorizations, close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))) };
}

/** A package directory (under `root`) holding only an extension.json for `runtime: "http"`. */
export async function writeRemotePackage(root: string, manifest: Record<string, unknown>): Promise<string> {
  const dir = join(root, `pkg-${Math.random().toString(36).slice(2)}`);
  await mkdir(dir);
  await writeFile(join(dir, 'extension.json'), JSON.stringify({ id: 'acme.remote', name: 'Remote echo', version: '1.0.0', runtime: 'http', ...manifest }));
  return dir;
}

/**
 * Test and bench support: the leanest HTTP/1.1 client that speaks the reference host's wire —
 * one keep-alive TCP connection (Nagle off), one POST per JSON-RPC request with exactly
 * `Content-Type: application/json` and `Accept: application/json`, one request at a time, the
 * answer read by its Content-Length. It is to `mep serve --http` what the line client
 * (line-client.ts) is to `mep serve --socket`, so a bench of the two compares the servers and
 * their wires, not Node's client libraries (the reference host's client is Rust's).
 */
import { connect, type Socket } from 'node:net';

/** An open connection; see {@link openHttp1Client}. */
export interface Http1Client {
  /** POSTs `body` to `path`; resolves with the status and the body as text. */
  post(path: string, body: string): Promise<{ status: number; body: string }>;
  close(): void;
}

const HEAD_END = Buffer.from('\r\n\r\n');

/**
 * Connects to `host:port`. A connection the server closed while idle (its keep-alive timeout) is
 * opened again by the next post, as any keep-alive client does. Refuses chunked answers (the
 * plain JSON wire always sends a length).
 */
export async function openHttp1Client(host: string, port: number): Promise<Http1Client> {
  let socket: Socket | undefined;
  let buffer: Buffer = Buffer.alloc(0);
  let waiting: { resolve: (answer: { status: number; body: string }) => void; reject: (error: Error) => void } | undefined;
  const fail = (error: Error): void => {
    const current = waiting;
    waiting = undefined;
    current?.reject(error);
  };
  const onData = (chunk: Buffer): void => {
    buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
    const end = buffer.indexOf(HEAD_END);
    if (end < 0 || !waiting) return;
    const head = buffer.subarray(0, end).toString('latin1');
    const status = Number(head.slice(9, 12));
    const length = /\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1];
    if (length === undefined) return fail(new Error(`an answer without Content-Length: ${head.split('\r\n')[0]}`));
    const total = end + HEAD_END.length + Number(length);
    if (buffer.length < total) return;
    const body = buffer.subarray(end + HEAD_END.length, total).toString('utf8');
    buffer = buffer.subarray(total);
    const current = waiting;
    waiting = undefined;
    current.resolve({ status, body });
  };
  const open = async (): Promise<Socket> => {
    const opened = connect({ host, port, noDelay: true });
    await new Promise<void>((resolve, reject) => (opened.once('connect', resolve), opened.once('error', reject)));
    buffer = Buffer.alloc(0);
    opened.on('error', fail);
    opened.on('close', () => {
      if (socket === opened) socket = undefined;
      fail(new Error('the server closed the connection'));
    });
    opened.on('data', onData);
    return opened;
  };
  socket = await open();
  return {
    async post(path, body) {
      if (waiting) throw new Error('one request at a time');
      const live = socket ?? (socket = await open());
      return new Promise((resolve, reject) => {
        waiting = { resolve, reject };
        live.write(`POST ${path} HTTP/1.1\r\nHost: ${host}:${port}\r\nContent-Type: application/json\r\nAccept: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
      });
    },
    close() {
      socket?.destroy();
      socket = undefined;
    },
  };
}

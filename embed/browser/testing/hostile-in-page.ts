/**
 * Test support for the browser red-team tests: runs one hostile wasm guest in the demo page
 * through the embed's own API (`createWasmTransport` with `createWebWorkerSpawner`, as
 * `openWasmSession` does), sends it request id 1 (answering its own requests at once, as a
 * session does) and reports how the call ended and how many messages (notifications, requests
 * and log lines) reached the page's thread meanwhile.
 */
import type { Page } from 'playwright-core';

/** How one hostile call ended in the page. */
export interface HostileOutcome {
  /** The answer's JSON (its first 200 characters), when the guest answered. */
  answer?: string;
  /** The error's code, `data.limit` and message (its first 600 characters), when the call failed. */
  code?: string | number;
  limit?: string;
  message?: string;
  /** Notifications and log lines (the host's own `guest memory` line aside) the page received. */
  arrived: number;
}

/** Runs `wasm` in a Web Worker of `page` under `limits`, asking it once. */
/**
 * The page's side, as text: tsx names the functions of a test file (`__name(…)`, which the page
 * lacks), so it is kept out of the compiled test code.
 */
const IN_PAGE = `async ({ base64, limits }) => {
  const embed = await import(new URL('./mep-embed.js', location.href).href);
  const module = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  let arrived = 0;
  let transport;
  try {
    transport = await embed.createWasmTransport({ name: 'hostile', module, isolation: 'worker', limits, spawnWorker: embed.createWebWorkerSpawner(),
    log: ({ message }) => void (/^guest memory/.test(message) || arrived++) });
    const answer = await new Promise((resolve, reject) => {
      transport.onMessage((m) => {
        if (m.method === undefined) return resolve(m);
        arrived++;
        // A guest request is answered at once, as a session's peer answers a method it does not know.
        if (m.id !== undefined) transport.send({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'Method not found' } });
      });
      transport.onClose((error) => reject(error ?? new Error('closed')));
      transport.send({ jsonrpc: '2.0', id: 1, method: 'hostile' });
    });
    return { answer: JSON.stringify(answer).slice(0, 200), arrived };
  } catch (e) {
    return { code: e.code, limit: e.data?.limit, message: String(e.message).slice(0, 600), arrived };
  } finally {
    await transport?.close();
  }
}`;

/** Runs `wasm` in a Web Worker of `page` under `limits`, asking it once. */
export async function runHostileInPage(page: Page, wasm: Uint8Array, limits: Record<string, number> = {}): Promise<HostileOutcome> {
  const arg = JSON.stringify({ base64: Buffer.from(wasm).toString('base64'), limits });
  return (await page.evaluate(`(${IN_PAGE})(${arg})`)) as HostileOutcome;
}

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadWatFixture } from '../../../../fixtures/wasm/compile.ts';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const mep = join(root, 'bin/mep.mjs');

/**
 * `mep serve` over stdio under V8's `--trace-wasm-compilation-times` (not a tiering flag): one
 * `session/open` of a wasm guest, then the end of input. Its stdout: the answer's JSON line and
 * V8's line for each wasm function it compiled ("Compiled function <module>#<index> using Liftoff"
 * or "… using TurboFan").
 */
function serveTrace(nodeFlags: string[], wasm: string): Promise<string> {
  const child = spawn(process.execPath, [...nodeFlags, '--trace-wasm-compilation-times', mep, 'serve'], { cwd: root, stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
    if (out.includes('"id":1')) child.stdin.end();
  });
  child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'session/open', params: { extension: wasm } })}\n`);
  return new Promise((resolve) => child.on('close', () => resolve(out)));
}

/** The tiers V8 compiled each wasm module's functions with, by module (Node's own wasm too). */
function tiersByModule(trace: string): string[] {
  const tiers = new Map<string, Set<string>>();
  for (const [, module, tier] of trace.matchAll(/Compiled function (0x[0-9a-f]+)#\d+ using (\w+)/g)) {
    tiers.set(module!, (tiers.get(module!) ?? new Set()).add(tier!));
  }
  return [...tiers.values()].map((set) => [...set].sort().join('+'));
}

const dir = mkdtempSync(join(tmpdir(), 'mep-serve-tier-'));
const wasm = join(dir, 'echo.wasm');
writeFileSync(wasm, loadWatFixture('echo'));

// Node compiles wasm of its own as it starts (its module lexer), before the command runs: that
// module starts on Liftoff either way; the guest's is the one compiled after serve chose.
test("should compile a served session's wasm module with the optimising tier only", async () => {
  const out = await serveTrace([], wasm);
  assert.ok(out.includes('"id":1'), out.slice(0, 400));
  assert.ok(tiersByModule(out).includes('TurboFan'), tiersByModule(out).join(', '));
});

test('should leave the tier to a tiering flag given to node (the control: every module starts on Liftoff)', async () => {
  const out = await serveTrace(['--liftoff'], wasm);
  assert.ok(out.includes('"id":1'), out.slice(0, 400));
  const tiers = tiersByModule(out);
  assert.ok(tiers.length >= 2 && tiers.every((t) => t.includes('Liftoff')), tiers.join(', '));
});

test.after(() => rmSync(dir, { recursive: true, force: true }));
test.run();

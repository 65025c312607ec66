import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { LocalErrorCode, isMepError } from '../../protocol/errors.ts';
import { createPeer } from '../../rpc/peer.ts';
import { createProcessTransport, type ProcessTransportOptions } from './index.ts';

const fixture = fileURLToPath(new URL('../../../../fixtures/extensions/well-behaved.mjs', import.meta.url));
const options = (more: Partial<ProcessTransportOptions>): ProcessTransportOptions => ({ name: 'fixture:values', command: process.execPath, args: [fixture], cwd: tmpdir(), killGraceMs: 200, termGraceMs: 200, ...more });

/** What `createProcessTransport` threw, or undefined. */
function thrown(more: Partial<ProcessTransportOptions>): unknown {
  try {
    const transport = createProcessTransport(options(more));
    void transport.close();
    return undefined;
  } catch (error) {
    return error;
  }
}

const Values = suite('process transport :: hostile launch values');

Values('should pass environment names that begin with a dash to the extension as names, never as options of the launcher', async () => {
  // Through the launcher's `env -i K=V… command`, '-S/bin/false #=x' was env's -S: /bin/false ran instead of the extension.
  const env = { '-S/bin/false #': 'x', '--chdir': '/nonexistent', '-u': 'z', PLAIN: '-i' };
  const transport = createProcessTransport(options({ env }));
  const peer = createPeer(transport, { timeoutMs: 10_000 });
  try {
    await peer.request('morphir.initialize', { protocolVersions: ['0.1'] });
    const seen = (await peer.request('fixture.env', {})) as { env: Record<string, string> };
    assert.equal(seen.env, env);
  } finally {
    await peer.close();
  }
});

Values('should refuse an environment name that is empty or holds "=" or NUL, naming it :: ERR_USAGE', () => {
  for (const name of ['', 'A=B', 'A\0B']) {
    const error = thrown({ env: { [name]: 'v' } });
    assert.ok(isMepError(error), `${JSON.stringify(name)}: ${String(error)}`);
    assert.is(error.code, LocalErrorCode.Usage);
    assert.match(error.message, /environment name/);
    assert.ok(error.message.includes(JSON.stringify(name)), error.message);
  }
});

Values('should refuse a NUL in an environment value, an argument or the command :: ERR_USAGE', () => {
  for (const more of [{ env: { A: 'a\0b' } }, { args: [fixture, 'a\0b'] }, { command: `${process.execPath}\0` }]) {
    const error = thrown(more);
    assert.ok(isMepError(error), String(error));
    assert.is(error.code, LocalErrorCode.Usage);
    assert.match(error.message, /NUL/);
  }
});

Values('should refuse arguments or an environment too long for the system with a typed error naming the bound :: ERR_USAGE', () => {
  for (const more of [{ env: { L: 'x'.repeat(200_000) } }, { args: [fixture, 'x'.repeat(3_000_000)] }]) {
    const error = thrown(more);
    assert.ok(isMepError(error), String(error));
    assert.is(error.code, LocalErrorCode.Usage);
    assert.match(error.message, /E2BIG|too long/);
  }
});

Values.run();

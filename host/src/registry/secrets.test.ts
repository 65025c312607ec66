import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ErrorCode } from '../protocol/errors.ts';
import { createRedactor, REDACTED } from './redact.ts';
import { parseSecretReference } from './secret-reference.ts';
import { createSecretResolver } from './secrets.ts';
import type { SecretEvent } from './secrets.ts';

const Secrets = suite('registry :: createSecretResolver');
const TOKEN = 's3cr3t-value-41';

function resolver(requested: string[], approved: string[], baseDir = '/', events: SecretEvent[] = []) {
  const redactor = createRedactor();
  return { redactor, events, resolve: createSecretResolver({ extension: 'acme.crm', requested, approved, env: { CRM_TOKEN: TOKEN }, baseDir, redactor, onEvent: (e) => events.push(e) }) };
}

Secrets('should parse env() and file() references and nothing else', () => {
  assert.equal(parseSecretReference('env("CRM_TOKEN")'), { kind: 'env', name: 'CRM_TOKEN' });
  assert.equal(parseSecretReference('file("secrets/t.txt")'), { kind: 'file', path: 'secrets/t.txt' });
  for (const bad of ['env(CRM_TOKEN)', 'env("")', 'env("A B")', 'cmd("x")', 'env("X") ']) assert.is(parseSecretReference(bad), undefined, bad);
});

Secrets('should grant a reference listed by the manifest and approved by configuration, and remember the value', async () => {
  const { resolve, redactor, events } = resolver(['env("CRM_TOKEN")'], ['env("CRM_TOKEN")']);
  assert.is(await resolve({ reference: 'env("CRM_TOKEN")' }), TOKEN);
  assert.is(redactor.scrub(`token=${TOKEN};`), `token=${REDACTED};`);
  assert.equal(events, [{ extension: 'acme.crm', reference: 'env("CRM_TOKEN")', outcome: 'granted' }]);
});

Secrets('should deny with -32012 naming the reference when the manifest or the configuration lacks it', async () => {
  for (const [requested, approved] of [[[], ['env("CRM_TOKEN")']], [['env("CRM_TOKEN")'], []], [['env("CRM_TOKEN")'], ['env("OTHER")']]] as const) {
    const { resolve, events } = resolver([...requested], [...approved]);
    const error = await resolve({ reference: 'env("CRM_TOKEN")' }).catch((e) => e);
    assert.is(error.code, ErrorCode.PermissionDenied);
    assert.equal(error.data, { reference: 'env("CRM_TOKEN")', reason: 'denied' });
    assert.ok(error.message.includes('env("CRM_TOKEN")'));
    assert.not.ok(JSON.stringify(error).includes(TOKEN));
    assert.is(events[0]?.outcome, 'denied');
  }
  const { resolve } = resolver([], []);
  assert.is((await resolve({}).catch((e) => e)).code, ErrorCode.InvalidParams);
});

Secrets('should read file() relative to the project, without the trailing newline, and report unavailable values', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'mep-secret-'));
  try {
    await writeFile(join(dir, 'token.txt'), `${TOKEN}\n`);
    const ref = 'file("token.txt")';
    const { resolve } = resolver([ref, 'env("UNSET")', 'file("none")'], [ref, 'env("UNSET")', 'file("none")'], dir);
    assert.is(await resolve({ reference: ref }), TOKEN);
    for (const missing of ['env("UNSET")', 'file("none")']) {
      const error = await resolve({ reference: missing }).catch((e) => e);
      assert.equal([error.code, error.data.reason], [ErrorCode.PermissionDenied, 'unavailable']);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

Secrets.run();

/**
 * Table-driven check of fixtures/mep/messages/index.json: every listed fixture is accepted or
 * refused exactly as the index states, through the schema (or reader) it names.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type * as z from 'zod';
import * as protocol from './index.ts';
import { isMepError } from './errors.ts';

interface Entry {
  file: string;
  message: 'request' | 'response' | 'notification' | 'error' | 'document';
  method?: string | null;
  schema?: string;
  reader?: 'parseClaimSet' | 'normalizeCompileParams';
  valid: boolean;
  errorCode?: number | string;
  dataSchema?: string;
}

const root = new URL('../../../fixtures/mep/messages/', import.meta.url);
const load = async (file: string): Promise<unknown> => (await import(new URL(file, root).href, { with: { type: 'json' } })).default;
const index = (await load('index.json')) as { fixtures: Entry[] };
const schemas = protocol as unknown as Record<string, unknown>;

function schemaNamed(name: string): z.ZodType {
  const schema = schemas[name] as z.ZodType | undefined;
  assert.ok(schema && typeof schema.safeParse === 'function', `index names unknown schema ${name}`);
  return schema;
}

function envelopeOf(entry: Entry): z.ZodType | undefined {
  switch (entry.message) {
    case 'request': return protocol.JsonRpcRequest;
    case 'notification': return protocol.JsonRpcNotification;
    case 'response': return protocol.JsonRpcSuccess;
    case 'error': return protocol.JsonRpcFailure;
    default: return undefined;
  }
}

function payloadOf(entry: Entry, body: Record<string, unknown>): unknown {
  if (entry.message === 'request' || entry.message === 'notification') return body.params;
  if (entry.message === 'response') return body.result;
  return body;
}

/** Reads the payload as the entry says; returns the thrown error or undefined when accepted. */
function read(entry: Entry, payload: unknown): { accepted: boolean; error?: unknown } {
  try {
    if (entry.reader === 'parseClaimSet') protocol.parseClaimSet(payload);
    else if (entry.reader === 'normalizeCompileParams') protocol.normalizeCompileParams(payload);
    else if (entry.message === 'request' || entry.message === 'notification') protocol.decodeParams(schemaNamed(entry.schema!), payload, entry.file);
    else protocol.decodeResult(schemaNamed(entry.schema!), payload, entry.file);
    return { accepted: true };
  } catch (error) {
    return { accepted: false, error };
  }
}

const Fixtures = suite('fixtures/mep/messages');

Fixtures('should list every method at least once, with string and integer ids', () => {
  const methods = new Set(index.fixtures.map((e) => e.method));
  for (const method of Object.values(protocol.Method)) assert.ok(methods.has(method), `no fixture for ${method}`);
  assert.ok(index.fixtures.length > 50);
});

for (const entry of index.fixtures) {
  const name = `${entry.file}${entry.reader ? ` :: ${entry.reader}` : ''} should be ${entry.valid ? 'accepted' : 'refused'}`;
  Fixtures(name, async () => {
    const body = (await load(entry.file)) as Record<string, unknown>;
    const envelope = envelopeOf(entry);
    if (envelope) {
      // MEP 0.1, Phase 0: fixtures validate as JSON-RPC 2.0 even when their payload is invalid.
      const parsed = envelope.safeParse(body);
      assert.ok(parsed.success, `${entry.file} is not a JSON-RPC ${entry.message}: ${parsed.error?.message}`);
      if (entry.method && entry.message !== 'response' && entry.message !== 'error') assert.is(body.method, entry.method);
    }
    if (entry.message === 'error') {
      const error = body.error as { code: number; data?: unknown };
      assert.is(error.code, entry.errorCode);
      if (entry.dataSchema) assert.ok(schemaNamed(entry.dataSchema).safeParse(error.data).success, 'error.data');
      return;
    }
    const verdict = read(entry, payloadOf(entry, body));
    assert.is(verdict.accepted, entry.valid, verdict.error instanceof Error ? verdict.error.message : `expected refusal of ${entry.file}`);
    if (!entry.valid && entry.errorCode !== undefined) {
      assert.ok(isMepError(verdict.error));
      assert.is(verdict.error.code, entry.errorCode);
    }
  });
}

Fixtures.run();

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Capabilities, capabilityKindsOf } from './capabilities.ts';
import { ExtensionInfo, InitializeParams, InitializeResult } from './initialize.ts';
import { elmInitializeResult } from './test-support.ts';

const Params = suite('InitializeParams');

Params('should accept the spec example and a minimal host without kind', () => {
  assert.ok(InitializeParams.safeParse({
    protocolVersions: ['0.1'],
    host: { kind: 'cli', name: 'morphir-cli', version: '0.1.0' },
    workspace: { rootUri: 'file:///work/acme-orders' },
    capabilities: { cancellation: true, progress: true },
    permissions: { workspaceRead: false, workspaceWrite: false, network: false, environment: [] },
  }).success);
  assert.ok(InitializeParams.safeParse({ protocolVersions: [], host: { name: 'h', version: '1' } }).success);
});

Params('should keep an unrecognized host kind and unknown members', () => {
  const p = InitializeParams.parse({ protocolVersions: ['0.1'], host: { kind: 'daemon-x', name: 'h', version: '1', pid: 4 }, locale: 'en' });
  assert.is(p.host.kind, 'daemon-x');
  assert.is((p.host as Record<string, unknown>).pid, 4);
  assert.is((p as Record<string, unknown>).locale, 'en');
});

Params('should refuse a string protocolVersions or a missing host', () => {
  assert.not.ok(InitializeParams.safeParse({ protocolVersions: '0.1', host: { name: 'h', version: '1' } }).success);
  assert.not.ok(InitializeParams.safeParse({ protocolVersions: ['0.1'] }).success);
});

Params.run();

const Result = suite('InitializeResult');

Result('should carry unknown capability members and kinds unchanged', () => {
  const raw = elmInitializeResult();
  (raw.capabilities as Record<string, unknown>).linter = { rules: ['a'] };
  const r = InitializeResult.parse(raw);
  assert.is((r.capabilities as Record<string, unknown>).streaming, false);
  assert.equal((r.capabilities as Record<string, unknown>).linter, { rules: ['a'] });
  assert.equal(r.extension.types, ['frontend', 'workspace']);
});

Result('should refuse a typed capability with a wrong member type', () => {
  const raw = elmInitializeResult();
  (raw.capabilities.frontend as Record<string, unknown>).irVersions = '3';
  assert.not.ok(InitializeResult.safeParse(raw).success);
});

Result.run();

const Kinds = suite('capabilityKindsOf');

Kinds('should list known kinds only, in a stable order', () => {
  const caps = Capabilities.parse({ backend: { targets: ['avro'], irVersions: ['3'], generate: true }, frontend: elmInitializeResult().capabilities.frontend, progress: true, other: {} });
  assert.equal(capabilityKindsOf(caps), ['frontend', 'backend']);
});

Kinds.run();

const Info = suite('ExtensionInfo');

Info('should read identity with or without types', () => {
  assert.ok(ExtensionInfo.safeParse({ id: 'x', name: 'X', version: '1.0.0' }).success);
  assert.ok(ExtensionInfo.safeParse({ id: 'x', name: 'X', version: '1.0.0', types: ['frontend', 'future-kind'] }).success);
  assert.not.ok(ExtensionInfo.safeParse({ id: '', name: 'X', version: '1.0.0' }).success);
});

Info.run();

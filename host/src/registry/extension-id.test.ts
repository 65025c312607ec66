import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { LocalErrorCode } from '../protocol/errors.ts';
import { ExtensionId, MAX_EXTENSION_ID_LENGTH, extensionIdProblem, isExtensionId, parseExtensionId } from './extension-id.ts';
import { parseManifest } from './manifest.ts';

const PLAIN = ['acme.crm', 'com.acme.crm', 'acme.crm.salesforce', 'a', 'A1_b-c', 'x'.repeat(MAX_EXTENSION_ID_LENGTH), 'mep.fixture.configurable', 'console', 'a..b', 'com1x'];
const NOT_PLAIN = ['', '.', '..', '../x', '../../src', 'a/b', 'a\\b', '/etc', 'C:', 'C:\\x', '.hidden', '.removing-1234', '-flag', '_x', 'a b', 'a\0b', 'acme.', 'é', 'con', 'NUL', 'nul.acme', 'com1', 'LPT9.x', 'x'.repeat(MAX_EXTENSION_ID_LENGTH + 1), 'a\n'];

const Id = suite('registry :: ExtensionId');

Id('should accept plain ids', () => {
  for (const id of PLAIN) {
    assert.is(extensionIdProblem(id), undefined, id);
    assert.ok(isExtensionId(id));
    assert.is(parseExtensionId(id), id);
    assert.is(ExtensionId.parse(id), id);
  }
});

Id('should refuse anything that is not one portable path segment, with ERR_USAGE and the reason', () => {
  for (const id of [...NOT_PLAIN, 42, null, undefined]) {
    assert.not.ok(isExtensionId(id), String(id));
    assert.type(extensionIdProblem(id), 'string');
    assert.not.ok(ExtensionId.safeParse(id).success);
    try {
      parseExtensionId(id, 'the id');
      assert.unreachable(String(id));
    } catch (error) {
      const e = error as { code: string; data: { reason: string; extension: unknown } };
      assert.is(e.code, LocalErrorCode.Usage);
      assert.equal([e.data.reason, e.data.extension], ['bad-id', id]);
    }
  }
});

Id('should be the rule of the manifest id too', () => {
  const manifest = { name: 'n', version: '1.0.0', runtime: 'wasm', entry: 'x.wasm' };
  assert.is(parseManifest({ ...manifest, id: 'acme.crm' }, 'm').id, 'acme.crm');
  for (const id of NOT_PLAIN) {
    const error = (() => {
      try {
        return parseManifest({ ...manifest, id }, 'm');
      } catch (e) {
        return e as { code: string; data: { issues: { path: string[] }[] } };
      }
    })() as { code: string; data: { issues: { path: string[] }[] } };
    assert.is(error.code, LocalErrorCode.Registry, id);
    assert.equal(error.data.issues[0]?.path, ['id']);
  }
});

Id.run();

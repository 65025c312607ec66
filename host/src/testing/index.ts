/**
 * `mep-runtime/testing`: the test kit for extension authors. Open an extension (its TypeScript
 * entry, a built artifact, wasm bytes, or the object of `defineExtension`), call it with typed
 * operations, and close it; sample Morphir IR to call it with. Plain ESM JavaScript with types,
 * for `node:test`, uvu, vitest or any other runner.
 *
 * @example
 * import { test } from 'node:test';
 * import assert from 'node:assert/strict';
 * import { openExtension, sampleIr } from 'mep-runtime/testing';
 *
 * test('generates the catalog', async () => {
 *   const extension = await openExtension('src/extension.ts');
 *   try {
 *     const { success, artifacts } = await extension.generate({ ir: sampleIr() });
 *     assert.equal(success, true);
 *   } finally {
 *     await extension.close();
 *   }
 * });
 */
export { openExtension, type ExtensionUnderTest, type IrInput, type OpenExtensionOptions, type TestExtension } from './open-extension.ts';
export { minimalIr, readIr, sampleIr, type MorphirIr } from './sample-ir.ts';
export { artifactText } from './artifacts.ts';
export { compileRequest, irRequest, sampleProject, sourceDocument, TEST_SOURCE_ROOT, type CompileRequestInput } from './requests.ts';
export { createInProcessTransport } from './in-process-transport.ts';
export { isMepError, MepError, ErrorCode, LocalErrorCode } from '../protocol/errors.ts';

/**
 * A Morphir naming validator as an MEP extension (`morphir.validator.validate`): forbidden words,
 * single-letter members, overlong names and module-name stutter, reported as diagnostics located
 * at the offending FQName. Builds to wasm or a process like every PDK extension.
 */
import { defineExtension } from '../../guest-pdk/src/index.ts';
import { validateNaming } from './src/validate.ts';

export default defineExtension({
  info: { id: 'morphir-naming-validator', name: 'Morphir naming rules', version: '0.1.0' },
  validator: {
    irVersions: ['3', '4'],
    validate: (params) => validateNaming(params.ir, (params.options ?? {}) as Record<string, unknown>),
  },
});

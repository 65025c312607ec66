/** Identity and capability of the TypeScript Avro backend, for the extension entry to declare. */

/** Extension identity (MEP 0.1 `initialize` info). */
export const AVRO_EXTENSION_INFO = {
  id: 'morphir-avro-ts',
  name: 'Morphir Avro Backend (TypeScript)',
  version: '0.1.0',
  description: 'Projects Morphir IR v3 and v4 specifications into Apache Avro schemas, protocols and IDL',
  license: 'Apache-2.0',
} as const;

/** Backend capability: target `avro`, IR format versions 3 and 4, generation supported. */
export const AVRO_CAPABILITY = {
  targets: ['avro'],
  irVersions: ['3', '4'],
  generate: true,
} as const;

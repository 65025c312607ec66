/** Public surface of the Avro backend generator (pure TypeScript; runs in Node and QuickJS). */
export { generateAvro, generateAvroFrom, type GenerateResult, type IrSource } from './generate.ts';
export { AVRO_CAPABILITY, AVRO_EXTENSION_INFO } from './extension-info.ts';
export { AVRO_CODES, type AvroCode, type Diagnostic } from './diagnostics.ts';
export type { Artifact } from './json-syntax.ts';
export { parseOptions, DEFAULT_OPTIONS, type AvroOptions, type TypeMapping } from './options.ts';
export { readIr, IrReadError } from './ir-reader.ts';
export type { NamedType, ProjectionModule, ProjectionPackage, TypeDeclaration, TypeExpr, ValueSpecification } from './model.ts';
export { canonicalName, upperCamel, lowerCamel, avroNamespace } from './naming.ts';

// ajv and fast-xml-parser, apart from the other 13 packages of the compatibility suite: ajv's
// dependency fast-uri has `/[\-]/u`, which QuickJS 2021-03-27 refuses to parse (a guest that
// bundles it does not compile), and fast-xml-parser's xml-naming builds a RegExp with escapes it
// refuses at load. Until the quickjs-ng engine lands they run in process and Node only.
import Ajv from 'ajv';
import { XMLBuilder, XMLParser } from 'fast-xml-parser';
import { PACKAGES, runProbes as runSome } from './probes.js';

/** ajv compiles a schema and validates two documents against it. */
export function ajvProbe() {
  const validate = new Ajv({ allErrors: true }).compile({ type: 'object', properties: { a: { type: 'integer' }, b: { type: 'string', pattern: '^[a-z-]+$' } }, required: ['a'], additionalProperties: false });
  return [validate({ a: 1, b: 'x-y' }), validate({ a: 'x', c: 1 }), validate.errors.map((e) => `${e.instancePath} ${e.keyword}`)];
}

/** fast-xml-parser parses XML with attributes and writes it back. */
function xmlProbe() {
  const parsed = new XMLParser({ ignoreAttributes: false }).parse('<a x="1"><b>t</b><b>u</b><c/></a>');
  return [parsed, new XMLBuilder({ ignoreAttributes: false, format: false }).build(parsed)];
}

/** All 15 packages. */
export const ALL_PACKAGES = { ajv: ajvProbe, 'fast-xml-parser': xmlProbe, ...PACKAGES };

/** Runs the probes of all 15 packages and the built-ins. */
export const runProbes = () => runSome(ALL_PACKAGES);

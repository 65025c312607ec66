/** The sample IR of the validator and transform templates: the sample model plus one empty module. */
import { sampleIr, type MorphirIr } from '../../../testing/sample-ir.ts';

/** The sample model with an empty public module `legacy` beside `customer`. */
export function sampleWithEmptyModule(): MorphirIr {
  const ir = sampleIr();
  const modules = (ir.distribution[3] as { modules: unknown[] }).modules;
  modules.push([[['legacy']], { access: 'Public', value: { types: [], values: [], doc: null } }]);
  return ir;
}

export const sampleFiles = (): Record<string, string> => ({ 'sample/morphir-ir.json': `${JSON.stringify(sampleWithEmptyModule(), null, 2)}\n` });

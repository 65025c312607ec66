/** The MEP 0.1 conformance suite. */
export { conformanceCases, formatResultLine, formatSummary, runConformance } from './runner.ts';
export type { CaseResult, ConformanceOptions } from './runner.ts';
export type { ConformanceCase } from './case.ts';

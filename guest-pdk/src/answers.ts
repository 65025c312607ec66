/**
 * What an extension's handlers return: the MEP 0.1 results with the parts the PDK fills in
 * (`success`, `diagnostics`) optional. The dispatcher completes them and checks the wire shape
 * before anything is sent.
 */
import type { Artifact, CompileResult } from '../../host/src/protocol/index.ts';

/** A zero-based position (MEP 0.1: lines and characters are zero-based). */
export type AuthorPosition = { line: number; character: number };

/**
 * A diagnostic as handlers return it: the MEP 0.1 fields, without the open index signature of
 * the wire schema (the dispatcher validates the wire shape before sending).
 */
export type AuthorDiagnostic = {
  severity: 'error' | 'warning' | 'info' | 'hint';
  code?: string;
  message: string;
  location?: { uri: string; range: { start: AuthorPosition; end: AuthorPosition } };
  related?: unknown[];
  data?: unknown;
};

/**
 * What a generate handler returns; `success` defaults to "no error diagnostic". `artifacts`
 * (default none) come after any the handler emitted with `ctx.emit`.
 */
export interface GenerateAnswer {
  artifacts?: Artifact[];
  diagnostics?: AuthorDiagnostic[];
  success?: boolean;
}

/** What a compile handler returns; `success` defaults to "no error diagnostic". */
export interface CompileAnswer {
  irVersion: string;
  ir: Record<string, unknown> | null;
  modules?: string[];
  diagnostics?: AuthorDiagnostic[];
  success?: boolean;
  moduleResults?: CompileResult['moduleResults'];
  contextDigest?: string;
}

/** What a validate handler returns; `success` defaults to "no error diagnostic". */
export interface ValidateAnswer {
  diagnostics?: AuthorDiagnostic[];
  success?: boolean;
}

/** What a transform handler returns; `success` defaults to "no error diagnostic". */
export interface TransformAnswer {
  irVersion?: string;
  ir?: Record<string, unknown> | null;
  diagnostics?: AuthorDiagnostic[];
  success?: boolean;
}

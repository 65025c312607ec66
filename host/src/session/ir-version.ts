/**
 * Detects the Morphir IR major version of an input distribution. IR-version detection is a host
 * concern (MEP 0.1, Backend generation): it never travels in the guest request.
 */
import { LocalErrorCode, MepError } from '../protocol/errors.ts';
import { JsonText } from '../protocol/json-text.ts';

/**
 * The IR major version (`"3"`, `"4"`, …) read from `formatVersion`, which morphir-elm writes as a
 * number (`3`) and newer tools as a SemVer string (`"3.0.0"`, `"4.0.0"`). `ir` is the parsed IR or
 * a {@link JsonText} of it.
 */
export function detectIrVersion(ir: unknown, what = 'the input IR'): string {
  const isObject = ir instanceof JsonText ? ir.kind === 'object' : typeof ir === 'object' && ir !== null && !Array.isArray(ir);
  if (!isObject) {
    throw new MepError(LocalErrorCode.Usage, `${what} is not a JSON object; pass a Morphir IR distribution (morphir-ir.json).`);
  }
  const format = ir instanceof JsonText ? ir.member('formatVersion') : (ir as { formatVersion?: unknown }).formatVersion;
  if (typeof format === 'number' && Number.isInteger(format) && format > 0) return String(format);
  if (typeof format === 'string') {
    const major = /^(\d+)(?:\.\d+){0,2}(?:[-+].*)?$/.exec(format.trim())?.[1];
    if (major) return String(Number(major));
  }
  throw new MepError(
    LocalErrorCode.Usage,
    `${what} has no usable "formatVersion" (found ${JSON.stringify(format)}); a Morphir IR file starts with {"formatVersion": 3, "distribution": …}.`,
    { data: { formatVersion: format ?? null } },
  );
}

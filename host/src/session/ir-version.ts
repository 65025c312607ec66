/**
 * Detects the Morphir IR major version of an input distribution. IR-version detection is a host
 * concern (MEP 0.1, Backend generation): it never travels in the guest request.
 */
import { LocalErrorCode, MepError } from '../protocol/errors.ts';

/**
 * The IR major version (`"3"`, `"4"`, …) read from `formatVersion`, which morphir-elm writes as a
 * number (`3`) and newer tools as a SemVer string (`"3.0.0"`, `"4.0.0"`).
 */
export function detectIrVersion(ir: unknown, what = 'the input IR'): string {
  if (typeof ir !== 'object' || ir === null || Array.isArray(ir)) {
    throw new MepError(LocalErrorCode.Usage, `${what} is not a JSON object; pass a Morphir IR distribution (morphir-ir.json).`);
  }
  const format = (ir as { formatVersion?: unknown }).formatVersion;
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

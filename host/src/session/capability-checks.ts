/**
 * "Refuse before dispatch" (MEP 0.1, Capabilities are consulted, not remembered): every check
 * reads the capabilities negotiated for this session, never a remembered or hard-coded limit,
 * and a refusal names the extension and the capability that imposed it.
 */
import type { Capabilities, CompileParams, GenerateParams, TransformParams, ValidateParams } from '../protocol/index.ts';
import type { WithIrText } from '../protocol/json-text.ts';
import { ErrorCode, MepError } from '../protocol/errors.ts';
import { detectIrVersion } from './ir-version.ts';

function refuse(extension: string, capability: string, message: string, data: Record<string, unknown>): MepError {
  return new MepError(
    ErrorCode.CapabilityUnavailable,
    `${message} Extension '${extension}' does not advertise it (capability ${capability}); choose a provider that does.`,
    { data: { extension, capability, refusedBy: 'host', ...data } },
  );
}

function list(values: readonly unknown[] | undefined): string {
  return values && values.length > 0 ? values.map((v) => JSON.stringify(v)).join(', ') : 'none';
}

/** Throws unless `morphir.backend.generate` with this target and IR version is advertised. */
export function checkGenerate(extension: string, caps: Capabilities, params: WithIrText<GenerateParams>): void {
  const backend = caps.backend;
  if (!backend || backend.generate !== true) {
    throw refuse(extension, 'backend.generate', 'Backend generation was requested.', { advertised: backend ?? null });
  }
  if (!backend.targets.includes(params.target)) {
    throw refuse(extension, 'backend.targets', `Target '${params.target}' was requested (advertised: ${list(backend.targets)}).`, {
      requested: params.target,
      advertised: backend.targets,
    });
  }
  checkIrVersion(extension, 'backend.irVersions', backend.irVersions, params.ir);
}

/** Throws unless this compile request fits the advertised frontend capability. */
export function checkCompile(extension: string, caps: Capabilities, params: CompileParams, documentCount: number): void {
  const frontend = caps.frontend;
  if (!frontend || frontend.compile !== true) {
    throw refuse(extension, 'frontend.compile', 'Frontend compilation was requested.', { advertised: frontend ?? null });
  }
  const languageId = (params as { languageId?: string }).languageId;
  const languages = frontend.languages.map((l) => l.id);
  if (languageId !== undefined && !languages.includes(languageId)) {
    throw refuse(extension, 'frontend.languages', `Language '${languageId}' was requested (advertised: ${list(languages)}).`, {
      requested: languageId,
      advertised: languages,
    });
  }
  const irVersion = (params.options as { irVersion?: unknown } | undefined)?.irVersion;
  if (irVersion !== undefined && !frontend.irVersions.includes(String(irVersion))) {
    throw refuse(extension, 'frontend.irVersions', `IR version '${String(irVersion)}' was requested (advertised: ${list(frontend.irVersions)}).`, {
      requested: String(irVersion),
      advertised: frontend.irVersions,
    });
  }
  if ((params as { baseline?: unknown }).baseline !== undefined && frontend.incremental !== true) {
    throw refuse(extension, 'frontend.incremental', 'A compile baseline was supplied to a non-incremental frontend.', {
      requested: 'baseline',
      advertised: frontend.incremental ?? false,
    });
  }
  if (documentCount > 1 && frontend.multiDocument !== true) {
    throw refuse(extension, 'frontend.multiDocument', `A compile request with ${documentCount} source documents was requested.`, {
      requested: documentCount,
      advertised: frontend.multiDocument ?? false,
    });
  }
}

/** Throws unless validation of this IR version is advertised. */
export function checkValidate(extension: string, caps: Capabilities, params: WithIrText<ValidateParams>): void {
  const validator = caps.validator as { irVersions?: string[]; validate?: boolean } | undefined;
  if (!validator || validator.validate === false) {
    throw refuse(extension, 'validator', 'Validation was requested.', { advertised: validator ?? null });
  }
  if (validator.irVersions) checkIrVersion(extension, 'validator.irVersions', validator.irVersions, params.ir);
}

/** Throws unless transformation of this IR version is advertised. */
export function checkTransform(extension: string, caps: Capabilities, params: WithIrText<TransformParams>): void {
  const transform = caps.transform as { irVersions?: string[]; transform?: boolean } | undefined;
  if (!transform || transform.transform === false) {
    throw refuse(extension, 'transform', 'An IR transform was requested.', { advertised: transform ?? null });
  }
  if (transform.irVersions) checkIrVersion(extension, 'transform.irVersions', transform.irVersions, params.ir);
}

function checkIrVersion(extension: string, capability: string, advertised: readonly string[], ir: unknown): void {
  const version = detectIrVersion(ir);
  if (!advertised.includes(version)) {
    throw refuse(extension, capability, `Morphir IR version ${version} was given (advertised: ${list(advertised)}).`, {
      requested: version,
      advertised,
    });
  }
}

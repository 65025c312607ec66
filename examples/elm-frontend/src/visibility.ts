/**
 * Module visibility (MEP 0.1, `package.exposedModules`): absent, every module is public; `[]`,
 * every module is private; a list, exactly those are public. morphir-elm's default `make` reads
 * a list its own way, and the frontend keeps that (the IR must equal `morphir-elm make`'s) but
 * reports where it differs instead of changing access silently: a module that no exposed module
 * reaches is left out of the IR, and a module whose types a public type of an exposed module uses
 * is made public. `[]` means an empty package to morphir-elm; here every module is compiled and
 * then marked private, as the protocol asks. Names that match no module are errors.
 */
import type { AuthorDiagnostic } from '../../../guest-pdk/src/index.ts';
import type { CompilePackage } from '../../../host/src/protocol/index.ts';
import { ELM_CODES, elmDiagnostic } from './diagnostic.ts';
import { pathFromJson, pathFromString, pathKey, type MorphirPath } from './elm-names.ts';
import type { PackageLayout } from './package-layout.ts';

/** How the compiler is asked to expose modules. */
export interface ExposurePlan {
  /** `exposedModules` for morphir-elm (absent: all public). */
  exposedModules?: string[];
  /** Mark every module private after compiling (`exposedModules: []`). */
  allPrivate: boolean;
  /** Errors: names that match no module. */
  diagnostics: AuthorDiagnostic[];
}

/** Reads `pkg.exposedModules` against the modules of the request. */
export function planExposure(pkg: CompilePackage, layout: PackageLayout): ExposurePlan {
  const listed = pkg.exposedModules;
  if (listed === undefined) return { allPrivate: false, diagnostics: [] };
  if (listed.length === 0) return { allPrivate: true, diagnostics: [] };
  const known = new Set(layout.modules.filter((m) => m.path).map((m) => pathKey(m.path!)));
  const diagnostics = listed
    .filter((name) => !known.has(pathKey(pathFromString(name))))
    .map((name) => {
      // A common slip: the module's full name where morphir.json wants it relative to the package.
      const full = layout.modules.find((m) => m.path && m.compiledName === name);
      const hint = full ? ` Name it relative to the package: ${full.compiledName!.split('.').slice(layout.packagePath.length).join('.')}.` : ' Check the name against the modules of the package.';
      return elmDiagnostic('error', ELM_CODES.unknownExposedModule, `package.exposedModules names ${name}, but no module of package ${pkg.name} has that name.${hint}`, undefined, undefined, { module: name });
    });
  return { exposedModules: [...listed], allPrivate: false, diagnostics };
}

type IrModule = [unknown, { access?: string }];

/** The package definition's module entries of a v3 distribution (empty when it has none). */
export function irModules(ir: Record<string, unknown>): IrModule[] {
  const distribution = ir.distribution;
  const definition = Array.isArray(distribution) ? (distribution[3] as { modules?: unknown }) : undefined;
  return Array.isArray(definition?.modules) ? (definition!.modules as IrModule[]) : [];
}

/**
 * Applies the plan to the compiled IR (in place) and reports what morphir-elm decided: modules
 * left out, modules made public.
 */
export function applyExposure(ir: Record<string, unknown>, plan: ExposurePlan, layout: PackageLayout): AuthorDiagnostic[] {
  const modules = irModules(ir);
  if (plan.allPrivate) {
    for (const [, module] of modules) module.access = 'Private';
    return [];
  }
  if (plan.exposedModules === undefined) return [];
  const exposed = new Set(plan.exposedModules.map((n) => pathKey(pathFromString(n))));
  const present = new Set<string>();
  const out: AuthorDiagnostic[] = [];
  for (const [path, module] of modules) {
    const p: MorphirPath = pathFromJson(path) ?? [];
    present.add(pathKey(p));
    if (module.access === 'Public' && !exposed.has(pathKey(p))) {
      const placed = layout.byPath(p);
      out.push(
        elmDiagnostic(
          'warning',
          ELM_CODES.implicitlyPublic,
          `Module ${placed?.header?.name ?? pathKey(p)} is public although package.exposedModules does not list it: a public type of an exposed module uses its types, and morphir-elm makes such modules public. List it, or keep its types out of exposed signatures.`,
          placed?.document.uri,
        ),
      );
    }
  }
  for (const m of layout.modules) {
    if (m.path && !present.has(pathKey(m.path))) {
      out.push(
        elmDiagnostic(
          'warning',
          ELM_CODES.unreachable,
          `Module ${m.header?.name} is not in the IR: no exposed module imports it (directly or through others), and morphir-elm leaves such modules out. List it in exposedModules to keep it.`,
          m.document.uri,
        ),
      );
    }
  }
  return out;
}

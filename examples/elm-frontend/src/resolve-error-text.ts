/**
 * Words for morphir-elm's name-resolution errors (`Morphir.Elm.IncrementalResolve`): a name that
 * is not defined or not imported, a module that does not exist or does not expose a name. Also
 * says which import the error is about, so that it can be pointed at.
 */
import { pathFromJson, pathToElm, toCamelCase, toTitleCase, type MorphirName } from './elm-names.ts';

type Json = unknown;

const list = (value: Json): Json[] => (Array.isArray(value) ? value : []);
const words = (value: Json): MorphirName => list(value).map(String);

/** A name as Elm spells it for its kind (`Value`: camelCase; `Type`, `Constructor`: TitleCase). */
export function elmName(name: Json, kind: Json): string {
  return kind === 'Value' ? toCamelCase(words(name)) : toTitleCase(words(name));
}

function kindWord(kind: Json): string {
  return kind === 'Type' ? 'type' : kind === 'Constructor' ? 'constructor' : 'value';
}

/** `[packagePath, modulePath]` as one Elm module name. */
export function qualifiedModuleText(qualified: Json): string {
  const [pkg, mod] = list(qualified);
  return pathToElm([...(pathFromJson(pkg) ?? []), ...(pathFromJson(mod) ?? [])]);
}

/** What a resolve error says, and the module whose import it is about (if any). */
export interface ResolveErrorText {
  message: string;
  /** The Elm name of the imported module the error is about, to point at its import line. */
  importOf?: string;
  /** The name as it appears in the source, to find where it is used. */
  spelled?: string;
}

/**
 * Renders one resolve error (`["LocalNameNotImported", name, kind]`, …); `show` spells a module
 * name the way the user wrote it (the compiler may see it with a package prefix).
 */
export function resolveErrorText(error: Json, show: (module: string) => string = (m) => m): ResolveErrorText {
  const node = list(error);
  const qualified = (q: Json): string => show(qualifiedModuleText(q));
  switch (node[0]) {
    case 'NoMorphirPackageFoundForElmModule': {
      const module = show(list(node[1]).map(String).join('.'));
      return { message: `No package provides module ${module}: it is not in this package, the Morphir SDK or a dependency.`, importOf: module };
    }
    case 'ModuleNotImported': {
      const module = show(list(node[1]).map(String).join('.'));
      return { message: `Module ${module} is not imported; add \`import ${module}\`.`, spelled: module };
    }
    case 'ModuleOrAliasNotImported':
      return { message: `${String(node[1])} is neither an imported module nor an import alias.`, spelled: String(node[1]) };
    case 'ModuleDoesNotExposeLocalName': {
      const module = show(pathToElm([...(pathFromJson(node[1]) ?? []), ...(pathFromJson(node[2]) ?? [])]));
      const name = elmName(node[3], node[4]);
      return { message: `Module ${module} does not expose the ${kindWord(node[4])} ${name}.`, spelled: name };
    }
    case 'ModulesDoNotExposeLocalName': {
      const name = elmName(node[3], node[4]);
      const modules = list(node[2]).map(qualified).join(', ');
      return { message: `None of the modules imported as ${String(node[1])} (${modules}) expose the ${kindWord(node[4])} ${name}.`, spelled: name };
    }
    case 'MultipleModulesExposeLocalName': {
      const name = elmName(node[2], node[3]);
      const modules = list(node[1]).map(qualified).join(', ');
      return { message: `The ${kindWord(node[3])} ${name} is exposed by several imported modules (${modules}); qualify it with the module it comes from.`, spelled: name };
    }
    case 'LocalNameNotImported': {
      const name = elmName(node[1], node[2]);
      return { message: `Cannot find the ${kindWord(node[2])} ${name}: it is neither defined in this module nor imported.`, spelled: name };
    }
    case 'ImportedModuleNotFound': {
      const module = qualified(node[1]);
      return { message: `The imported module ${module} does not exist.`, importOf: module };
    }
    case 'ImportedLocalNameNotFound': {
      const module = qualified(node[1]);
      const name = elmName(node[2], node[3]);
      return { message: `Module ${module} has no ${kindWord(node[3])} ${name} to import.`, importOf: module, spelled: name };
    }
    default:
      return { message: `A name could not be resolved (${JSON.stringify(error)}).` };
  }
}

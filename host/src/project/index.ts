/**
 * Morphir projects on disk as compile requests, and compiling them end to end (Node-only: this
 * folder reads and writes files).
 */
export { MorphirJson, readMorphirJson, readMorphirProject, readSourceFolders } from './morphir-project.ts';
export type { MorphirProject, ReadProjectOptions } from './morphir-project.ts';
export { compileProject } from './compile-project.ts';
export type { CompileProjectOptions, ProjectCompileOutcome } from './compile-project.ts';
export { ONE_FILE_PACKAGE, commonFolder, compileRequestForFiles } from './source-files.ts';

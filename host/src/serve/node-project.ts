/**
 * Node's `project/compile` for the served host: the client names a project folder on the
 * server's machine, the server reads it (morphir.json and every source file), compiles it in the
 * client's session and writes the IR atomically, as `mep compile <dir>` does. The client is local
 * (stdio or a 0600 Unix socket) and runs as the same user, so it reads nothing it could not read.
 */
import { resolve } from 'node:path';
import { compileProject } from '../project/compile-project.ts';
import type { CompileProjectFolder } from './connection.ts';

/**
 * A {@link CompileProjectFolder} reading folders relative to `cwd`.
 *
 * @example
 * const server = createHostServer({ open: createNodeOpener(), compileProject: createNodeProjectCompiler() });
 */
export function createNodeProjectCompiler(cwd = process.cwd()): CompileProjectFolder {
  return async (session, request, options) => {
    const projectDir = resolve(cwd, request.projectDir);
    const languages = session.initializeResult?.capabilities.frontend?.languages ?? [];
    const elm = languages.find((l) => l.id === 'elm');
    const { result, output } = await compileProject(session, projectDir, {
      ...options,
      ...(request.output === undefined ? {} : { output: request.output }),
      ...(request.options ? { options: request.options } : {}),
      ...(elm?.fileExtensions?.length ? { fileExtensions: elm.fileExtensions } : {}),
    });
    return {
      success: result.success,
      projectDir,
      irVersion: result.irVersion ?? null,
      modules: result.modules,
      diagnostics: result.diagnostics,
      output,
      ...(request.output === false ? { ir: result.ir ?? null } : {}),
    };
  };
}

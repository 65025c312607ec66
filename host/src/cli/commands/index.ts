/**
 * Every `mep` subcommand, by name, loaded on demand: `mep build` never loads the session, the
 * wasm engine binding or the protocol schemas, `mep --help` loads none of them. The summary is
 * repeated here so the command list needs no module (a test checks each against its module).
 */
import type { Command } from './command.ts';

/** A subcommand's one-line summary and how to load it. */
export interface CommandEntry {
  /** One line for `mep --help` (equal to the loaded command's `summary`). */
  summary: string;
  load(): Promise<Command>;
}

export const commands: Record<string, CommandEntry> = {
  build: { summary: 'compile a TypeScript extension to wasm (default) or a Node process file', load: async () => (await import('./build.ts')).buildCommand },
  call: { summary: 'send one request to an extension and print its result as JSON', load: async () => (await import('./call.ts')).callCommand },
  init: { summary: 'scaffold a new TypeScript extension', load: async () => (await import('./init.ts')).initCommand },
  compile: { summary: 'compile a Morphir project or source files to Morphir IR with a frontend extension', load: async () => (await import('./compile.ts')).compileCommand },
  conformance: { summary: 'run the MEP 0.1 conformance suite against an extension', load: async () => (await import('./conformance.ts')).conformanceCommand },
  describe: { summary: "print an extension's capability claim set", load: async () => (await import('./describe.ts')).describeCommand },
  generate: { summary: 'generate artifacts from Morphir IR with a backend extension', load: async () => (await import('./generate.ts')).generateCommand },
  install: { summary: 'install an extension package from a directory, git or an archive', load: async () => (await import('./install.ts')).installCommand },
  list: { summary: 'list installed extensions and their capabilities', load: async () => (await import('./list.ts')).listCommand },
  pack: { summary: 'pack an extension package into a .tgz with SHA256SUMS, for mep install', load: async () => (await import('./pack.ts')).packCommand },
  remove: { summary: 'uninstall an extension', load: async () => (await import('./remove.ts')).removeCommand },
  serve: { summary: 'serve extension sessions to another process (JSON-RPC, one message per line)', load: async () => (await import('./serve.ts')).serveCommand },
  trust: { summary: "trust a project's .mep/config.json approvals and .mep/extensions.lock (records their sha256)", load: async () => (await import('./trust.ts')).trustCommand },
  untrust: { summary: "forget a project's trusted .mep/config.json and .mep/extensions.lock", load: async () => (await import('./trust.ts')).untrustCommand },
  transform: { summary: 'transform Morphir IR with a transform extension', load: async () => (await import('./transform.ts')).transformCommand },
  validate: { summary: 'check Morphir IR with a validator extension', load: async () => (await import('./validate.ts')).validateCommand },
};

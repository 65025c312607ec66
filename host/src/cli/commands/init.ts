/**
 * `mep init <dir>`: scaffold a new extension that builds, answers `mep call` on its sample model
 * and passes its own behaviour tests (in both runtimes) as generated, installed from wherever this
 * mep-runtime came from.
 */
import { basename, isAbsolute, join, relative, resolve } from 'node:path';
import { HOST_VERSION } from '../../session/host-info.ts';
import { ExitCode, UsageError } from '../exit-codes.ts';
import type { Command } from './command.ts';
import { onePositional, parseFlags } from './command.ts';
import { writeNewFolder } from './init-write.ts';
import { INIT_KINDS, KIND_TEMPLATES, type InitKind } from './init-kinds/index.ts';
import { ownInstall } from './own-install.ts';

export { SAMPLE_CATALOG, SAMPLE_TINY } from './init-kinds/index.ts';

/** What a new extension depends on when nothing better is known: the published release of this mep-runtime. */
export const DEFAULT_RUNTIME_SPEC = `^${HOST_VERSION}`;
/** The TypeScript a new extension type-checks with (`mep build` loads it only when it must check). */
export const TEMPLATE_TYPESCRIPT_SPEC = '^5.7.0';

const readme = (id: string, kind: InitKind): string => `# ${id}

An MEP 0.1 ${kind} written with the mep-runtime guest PDK: ${KIND_TEMPLATES[kind].summary}.

\`\`\`sh
npm install                                   # mep-runtime and TypeScript
npm run build                                 # dist/extension.wasm, sandboxed
npm run watch                                 # the same, rebuilt on every change (Ctrl+C stops)
${KIND_TEMPLATES[kind].call.padEnd(45)} # one request on the sample
npm test                                      # the behaviour tests, in wasm and as a process
npm run build:process                         # dist/extension.mjs, a child process speaking MEP on stdio
npx mep conformance dist/extension.wasm       # the MEP 0.1 conformance suite
\`\`\`

Errors the extension throws are reported at the file and line of \`src/\` (the build keeps a
source map). \`extension.json\` describes the package: \`npx mep install .\` installs it into a
project's \`.mep/extensions\`, after which ${KIND_TEMPLATES[kind].installed(id)}. The tests use
\`mep-runtime/testing\`, which applies \`extension.json\`'s permissions and limits as an install does.
`;

/**
 * The tsconfig of a new extension: what the wasm sandbox has and nothing else, as `mep build`
 * checks it (ES2023, the guest's globals from `mep-runtime/guest-pdk/globals`, no DOM, no Node),
 * so the editor flags `fetch` or `process` where the build would.
 */
export const TEMPLATE_TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    lib: ['ES2023'],
    types: ['mep-runtime/guest-pdk/globals'],
    module: 'ESNext',
    moduleResolution: 'Bundler',
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    allowImportingTsExtensions: true,
  },
  include: ['src'],
};

/**
 * The files of a new extension, keyed by relative path.
 *
 * @param runtimeSpec the npm spec of its `mep-runtime` dependency (a version range, or e.g.
 *   `file:/path/to/mep-runtime-0.1.0.tgz` for a packed tarball)
 */
export function scaffoldFiles(id: string, runtimeSpec: string = DEFAULT_RUNTIME_SPEC, kind: InitKind = 'backend'): Record<string, string> {
  const template = KIND_TEMPLATES[kind];
  const pkg = {
    name: id,
    version: '0.1.0',
    private: true,
    type: 'module',
    scripts: {
      build: 'mep build src/extension.ts -o dist/extension.wasm',
      'build:process': 'mep build src/extension.ts --runtime process -o dist/extension.mjs',
      watch: 'mep build src/extension.ts -o dist/extension.wasm --watch',
      test: 'node --test test/',
    },
    devDependencies: { 'mep-runtime': runtimeSpec, typescript: TEMPLATE_TYPESCRIPT_SPEC },
  };
  const manifest = { id, name: id, version: '0.1.0', runtime: 'wasm', entry: 'dist/extension.wasm', permissions: {} };
  return {
    'package.json': `${JSON.stringify(pkg, null, 2)}\n`,
    'extension.json': `${JSON.stringify(manifest, null, 2)}\n`,
    'tsconfig.json': `${JSON.stringify(TEMPLATE_TSCONFIG, null, 2)}\n`,
    '.gitignore': 'node_modules/\ndist/\n',
    'src/extension.ts': template.source(id),
    ...template.samples(),
    'test/extension.test.mjs': template.test,
    'README.md': readme(id, kind),
  };
}

export const initCommand: Command = {
  summary: 'scaffold a new TypeScript extension',
  help: `Usage: mep init <dir> [--kind backend|frontend|validator|transform] [--id ID] [--mep-runtime SPEC]

Creates <dir> with package.json, extension.json, tsconfig.json, src/extension.ts (a small
extension of the kind asked for, written with the guest PDK), its sample input (sample/),
behaviour tests for both runtimes written with mep-runtime/testing, and a README. <dir> must be empty or absent; nothing
is overwritten. Prints the commands that install, build, call and test it, to run as printed.

  --kind K            backend (default: Morphir IR → a catalog file), frontend (a tiny language of
                      type aliases → Morphir IR), validator (Morphir IR → diagnostics) or
                      transform (Morphir IR → Morphir IR)
  --id ID             the extension id and target (default: the directory name)
  --mep-runtime SPEC  the project's mep-runtime dependency (default: where this mep was installed
                      from: the registry, a packed tarball or a folder; ${DEFAULT_RUNTIME_SPEC} when it cannot
                      tell); e.g. file:mep-runtime-${HOST_VERSION}.tgz (a relative file: path is taken from
                      the current directory)`,
  async run(argv, io) {
    const { values, positionals } = parseFlags(argv, { id: { type: 'string' }, kind: { type: 'string' }, 'mep-runtime': { type: 'string' } }, 'init');
    const kind = (values.kind ?? 'backend') as InitKind;
    if (!INIT_KINDS.includes(kind)) throw new UsageError(`--kind expects one of ${INIT_KINDS.join(', ')}, got '${values.kind}'.`);
    const given = onePositional(positionals, 'directory', 'init');
    const dir = resolve(io.cwd, given);
    const own = values['mep-runtime'] === undefined ? ownInstall(HOST_VERSION) : undefined;
    const runtimeSpec = projectSpec(values['mep-runtime'] ?? own?.spec ?? DEFAULT_RUNTIME_SPEC, io.cwd, dir);
    if (runtimeSpec.trim() === '') throw new UsageError(`--mep-runtime needs an npm spec such as ${DEFAULT_RUNTIME_SPEC} or file:path/to/mep-runtime.tgz.`);
    const id = values.id ?? basename(dir).toLowerCase().replace(/[^a-z0-9.-]+/g, '-');
    if (!/^[a-z0-9][a-z0-9.-]*$/.test(id)) throw new UsageError(`'${id}' is not a usable extension id; pass --id with lowercase letters, digits, '.' and '-'.`);
    await writeNewFolder(dir, scaffoldFiles(id, runtimeSpec, kind));
    if (own?.note) io.err(`mep init: the project depends on mep-runtime ${runtimeSpec} (${own.note}).`);
    io.out(`Created the ${kind} ${id} in ${dir} (mep-runtime ${runtimeSpec}). Next:\n  ${nextSteps(given, kind)}`);
    return ExitCode.Ok;
  },
};

/** A relative `file:` spec given from `cwd`, rewritten relative to the project at `dir`. */
function projectSpec(spec: string, cwd: string, dir: string): string {
  if (!spec.startsWith('file:')) return spec;
  const path = spec.slice('file:'.length);
  if (path === '' || isAbsolute(path)) return spec;
  return `file:${relative(dir, resolve(cwd, path)) || '.'}`;
}

/** The shell commands that take a new project from nothing to a call and its tests, verbatim. */
export function nextSteps(dir: string, kind: InitKind = 'backend'): string {
  return `cd ${shellQuote(dir)} && npm install && npm run build && ${KIND_TEMPLATES[kind].call} && npm test`;
}

/** `value` as one POSIX shell word (unchanged when it needs no quoting). */
function shellQuote(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

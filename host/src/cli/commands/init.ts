/** `mep init <dir>`: scaffold a new extension that builds and passes `mep conformance` as generated. */
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { basename, isAbsolute, join, relative, resolve } from 'node:path';
import { HOST_VERSION } from '../../session/host-info.ts';
import { ExitCode, UsageError } from '../exit-codes.ts';
import type { Command } from './command.ts';
import { onePositional, parseFlags } from './command.ts';

/** What a new extension depends on by default: the published release of this mep-runtime. */
export const DEFAULT_RUNTIME_SPEC = `^${HOST_VERSION}`;
/** The TypeScript a new extension type-checks with (`mep build` loads it only when it must check). */
export const TEMPLATE_TYPESCRIPT_SPEC = '^5.7.0';

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
 *   `file:../mep-runtime-0.1.0.tgz` for a packed tarball)
 */
export function scaffoldFiles(id: string, runtimeSpec: string = DEFAULT_RUNTIME_SPEC): Record<string, string> {
  const pkg = {
    name: id,
    version: '0.1.0',
    private: true,
    type: 'module',
    scripts: {
      build: 'mep build src/extension.ts -o dist/extension.wasm',
      'build:process': 'mep build src/extension.ts --runtime process -o dist/extension.mjs',
      test: 'node --test test/',
    },
    devDependencies: { 'mep-runtime': runtimeSpec, typescript: TEMPLATE_TYPESCRIPT_SPEC },
  };
  return {
    'package.json': `${JSON.stringify(pkg, null, 2)}\n`,
    'tsconfig.json': `${JSON.stringify(TEMPLATE_TSCONFIG, null, 2)}\n`,
    '.gitignore': 'node_modules/\ndist/\n',
    'src/extension.ts': `/**
 * ${id}: an MEP 0.1 backend. Build it with \`npm run build\` (sandboxed wasm) or
 * \`npm run build:process\` (a Node process); the source is the same.
 */
import { defineExtension, diagnostic, textArtifact } from 'mep-runtime/guest-pdk';

export default defineExtension({
  info: { id: '${id}', name: '${id}', version: '0.1.0' },
  backend: {
    targets: ['${id}'],
    irVersions: ['3'],
    generate({ ir }, ctx) {
      ctx.progress('begin', 'Listing modules');
      const distribution = (ir as { distribution?: unknown }).distribution;
      if (!Array.isArray(distribution) || distribution[0] !== 'Library') {
        // Domain failures are results with diagnostics, never protocol errors.
        return { artifacts: [], diagnostics: [diagnostic('error', 'Expected a Morphir IR Library distribution.', { code: 'EXT001' })] };
      }
      const modules = ((distribution[3] as { modules?: [unknown, unknown][] })?.modules ?? []).map(([name]) => JSON.stringify(name));
      ctx.progress('end');
      return { artifacts: [textArtifact('modules.txt', modules.join('\\n') + '\\n')] };
    },
  },
});
`,
    'test/extension.test.mjs': `// Builds the extension to wasm and runs the MEP 0.1 conformance suite against it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

// The mep command of the installed mep-runtime (npm install first).
const bin = join(dirname(createRequire(import.meta.url).resolve('mep-runtime/package.json')), 'bin', 'mep.mjs');
const mep = (...args) => execFileSync(process.execPath, [bin, ...args], { encoding: 'utf8' });

test('builds to wasm and passes mep conformance', () => {
  mep('build', 'src/extension.ts', '-o', 'dist/extension.wasm');
  const out = mep('conformance', 'dist/extension.wasm');
  assert.match(out, / 0 failed/);
});
`,
    'README.md': `# ${id}

An MEP 0.1 extension written with the mep-runtime guest PDK.

\`\`\`sh
npm install            # mep-runtime and TypeScript
npm run build          # dist/extension.wasm, sandboxed
npm run build:process  # dist/extension.mjs, a child process speaking MEP on stdio
npm test               # builds and runs the conformance suite
\`\`\`
`,
  };
}

export const initCommand: Command = {
  summary: 'scaffold a new TypeScript extension',
  help: `Usage: mep init <dir> [--id ID] [--mep-runtime SPEC]

Creates <dir> with package.json, tsconfig.json, src/extension.ts (a small backend written with
the guest PDK) and a test that builds it and runs 'mep conformance'. <dir> must be empty or
absent; nothing is overwritten. Prints the commands that install, build and check it.

  --id ID             the extension id and target (default: the directory name)
  --mep-runtime SPEC  the project's mep-runtime dependency (default: ${DEFAULT_RUNTIME_SPEC}, from the
                      npm registry); e.g. file:mep-runtime-${HOST_VERSION}.tgz for a packed tarball
                      (a relative file: path is taken from the current directory)`,
  async run(argv, io) {
    const { values, positionals } = parseFlags(argv, { id: { type: 'string' }, 'mep-runtime': { type: 'string' } }, 'init');
    const given = onePositional(positionals, 'directory', 'init');
    const dir = resolve(io.cwd, given);
    const runtimeSpec = projectSpec(values['mep-runtime'] ?? DEFAULT_RUNTIME_SPEC, io.cwd, dir);
    if (runtimeSpec.trim() === '') throw new UsageError(`--mep-runtime needs an npm spec such as ${DEFAULT_RUNTIME_SPEC} or file:path/to/mep-runtime.tgz.`);
    const id = values.id ?? basename(dir).toLowerCase().replace(/[^a-z0-9.-]+/g, '-');
    if (!/^[a-z0-9][a-z0-9.-]*$/.test(id)) throw new UsageError(`'${id}' is not a usable extension id; pass --id with lowercase letters, digits, '.' and '-'.`);
    const existing = await readdir(dir).catch(() => [] as string[]);
    if (existing.length > 0) throw new UsageError(`${dir} is not empty; choose a new directory (nothing was written).`);
    for (const [path, content] of Object.entries(scaffoldFiles(id, runtimeSpec))) {
      await mkdir(join(dir, path, '..'), { recursive: true });
      await writeFile(join(dir, path), content, { flag: 'wx' });
    }
    io.out(`Created ${id} in ${dir}. Next:\n  ${nextSteps(given)}`);
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

/** The shell commands that take a new project from nothing to a conformance run, verbatim. */
export function nextSteps(dir: string): string {
  return `cd ${shellQuote(dir)} && npm install && npm run build && npx mep conformance dist/extension.wasm`;
}

/** `value` as one POSIX shell word (unchanged when it needs no quoting). */
function shellQuote(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

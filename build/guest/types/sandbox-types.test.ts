import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import ts from 'typescript';
import { scaffoldFiles } from '../../../host/src/cli/commands/init.ts';
import { REPO_ROOT } from '../../engine/index.ts';
import { ENGINE_QUICKJS_2021 } from '../../engine/testing/engine-version.ts';
import { loadScriptGuest } from '../../engine/testing/script-guest.ts';
import { typecheckGuest } from '../typecheck.ts';
import { GUEST_LIB, GUEST_TYPES, GUEST_WEB_TYPES, writeGuestTypes } from './guest-globals.ts';
import { ABSENT_LIB_GLOBALS } from './missing-globals.ts';

/** Globals the engine has that the declarations leave out on purpose: QuickJS's own, and built-ins newer than ES2023 (Node 20, which runs a process build, lacks them). */
const UNDECLARED_ON_PURPOSE = ['InternalError', '__date_clock', 'Iterator', 'DisposableStack', 'AsyncDisposableStack', 'SuppressedError', 'Float16Array'];
/** ES2023 globals the 2021 engine lacks (quickjs-ng has them). */
const MISSING_ON_2021 = ['FinalizationRegistry', 'WeakRef'];

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'mep-guest-types-'));
}

/** The global values a program with `roots` sees: name -> declared by our files or by the ES library. */
function declaredGlobals(roots: string[]): Map<string, 'ours' | 'lib'> {
  const dir = tempDir();
  try {
    const probe = join(dir, 'probe.ts');
    writeFileSync(probe, 'export {};\n');
    const program = ts.createProgram([probe, ...roots], { lib: [...GUEST_LIB], types: [], noEmit: true, module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 });
    const file = program.getSourceFile(probe)!;
    // globalThis and undefined are the checker's own, not symbols of a file.
    const out = new Map<string, 'ours' | 'lib'>([['globalThis', 'lib'], ['undefined', 'lib']]);
    for (const symbol of program.getTypeChecker().getSymbolsInScope(file, ts.SymbolFlags.Value)) {
      const files = (symbol.declarations ?? []).map((d) => d.getSourceFile());
      if (files.length === 0 || files.includes(file)) continue;
      out.set(symbol.name, files.some((f) => !program.isSourceFileDefaultLibrary(f)) ? 'ours' : 'lib');
    }
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const exact = suite("guest types :: exactly the sandbox's globals");

exact('should declare every global the sandbox has, and nothing it lacks but what the check reports', async () => {
  const guest = await loadScriptGuest(`globalThis.__mep_exports = { run() { Host.outputString(JSON.stringify(Object.getOwnPropertyNames(globalThis))); return 0; } };`, ['run']);
  const present = new Set((JSON.parse(guest.call('run').text) as string[]).filter((n) => n !== '__mep_exports'));
  const declared = declaredGlobals([GUEST_TYPES]);
  const undeclared = [...present].filter((n) => !declared.has(n));
  assert.ok(undeclared.every((n) => UNDECLARED_ON_PURPOSE.includes(n)), `undeclared globals of the sandbox: ${undeclared.join(', ')}`);
  const absent = [...declared.keys()].filter((n) => !present.has(n)).sort();
  // Intl: not in the engine, bundled by mep build into a guest that uses it. (Atomics is in the engine.)
  assert.equal(absent, [...ABSENT_LIB_GLOBALS, 'Intl', ...(ENGINE_QUICKJS_2021 ? MISSING_ON_2021 : [])].sort());
  assert.ok([...declared.values()].filter((w) => w === 'ours').length >= 25, 'the sandbox declarations were read');
});

exact('should declare only web globals that Node also has, so a process build runs the same code', () => {
  const web = [...declaredGlobals([GUEST_WEB_TYPES])].filter(([, w]) => w === 'ours').map(([n]) => n);
  assert.ok(web.includes('setTimeout') && web.includes('URL') && web.includes('AbortController'), web.join(', '));
  const missingInNode = web.filter((n) => (globalThis as Record<string, unknown>)[n] === undefined);
  assert.equal(missingInNode, []);
});

exact('should be declaration files that type-check on their own (no skipLibCheck)', () => {
  const program = ts.createProgram([GUEST_TYPES], { lib: [...GUEST_LIB], types: [], noEmit: true, strict: true, skipLibCheck: false });
  const problems = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  assert.equal(problems, []);
});

exact.run();

const check = suite('guest types :: mep build tells what the sandbox lacks');

/** Type-checks `source` as an entry in `dir` (default: a temporary folder outside the repository). */
async function problemsOf(source: string, runtime: 'wasm' | 'process', dir = tempDir()): Promise<string[]> {
  mkdirSync(dir, { recursive: true });
  const entry = join(dir, 'main.ts');
  writeFileSync(entry, source);
  try {
    return (await typecheckGuest(entry, { runtime, cwd: dir })).map((d) => `${d.line}: ${d.message}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const USES_MISSING = [
  `export async function handle(): Promise<unknown> {`,
  `  return [`,
  `    await fetch('https://example.com'),`,
  `    document.title,`,
  `    process.env.HOME,`,
  `    require('node:fs'),`,
  `    setImmediate(() => {}),`,
  `    Buffer.from('x'),`,
  `    window,`,
  `    globalThis.fetch,`,
  `    new Intl.NumberFormat('de-DE').format(1),`,
  `    Atomics,`,
  `  ];`,
  `}`,
  ``,
].join('\n');

check('should say which globals the wasm sandbox lacks and what to use instead :: hostile', async () => {
  const problems = await problemsOf(USES_MISSING, 'wasm');
  const expected: [number, string, string][] = [
    [3, 'TS2304', 'fetch'], [4, 'TS2584', 'document'], [5, 'TS2591', 'process'], [6, 'TS2591', 'require'], [7, 'TS2304', 'setImmediate'],
    [8, 'TS2591', 'Buffer'], [9, 'TS2304', 'window'], [10, 'TS7017', 'fetch'],
  ];
  assert.is(problems.length, expected.length, problems.join('\n'));
  expected.forEach(([line, code, name], i) => assert.ok(problems[i]!.startsWith(`${line}: ${code}: \`${name}\` is not available in the wasm sandbox: `), problems[i]));
  assert.match(problems[2]!, /read settings from the request/);
  assert.match(problems[7]!, /no network/);
  // Atomics is in the engine (one thread: Atomics.wait throws) and Intl is bundled when used (issue 33): neither is reported.
  assert.not.ok(problems.some((p) => /Atomics|Intl/.test(p)), problems.join('\n'));
});

check('should accept what the sandbox has: its globals, ES2023, and Intl in types or as a local name', async () => {
  const source = `export async function handle(): Promise<unknown> {
  const u = new URL('../b?x=1', 'https://example.com/a/');
  u.searchParams.append('y', 'z');
  const t = setTimeout((n: number) => n, 5, 1); clearTimeout(t); clearInterval(setInterval(() => {}, 1));
  queueMicrotask(() => {});
  await new Promise<void>((resolve) => setTimeout(resolve, 10));
  await new Promise((resolve) => setTimeout(resolve, 10));
  const clone = structuredClone({ m: new Map([[1, new Set([2])]]) });
  const bytes = new TextEncoder().encode('é'); const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream: true });
  console.table([{ a: 1 }]); console.group('g'); console.groupEnd(); console.time(); console.timeEnd(); console.count(); console.assert(true);
  const signal = AbortSignal.any([AbortSignal.timeout(5), new AbortController().signal]); signal.throwIfAborted();
  const target = new EventTarget(); target.addEventListener('x', (e: Event) => e.preventDefault(), { once: true }); target.dispatchEvent(new Event('x'));
  const err = new DOMException('m', 'AbortError');
  const id = crypto.randomUUID(); const rnd = crypto.getRandomValues(new Uint8Array(4));
  const now = performance.now() + performance.timeOrigin;
  const b64 = atob(btoa('mep'));
  const es = [[3, 1].toSorted().at(-1), [1, 2].findLast((x) => x > 0), Object.hasOwn({ a: 1 }, 'a'), 'a-b'.replaceAll('-', '+'), new Error('x', { cause: err })];
  const options: Intl.NumberFormatOptions = { style: 'percent' };
  const local = (Intl: { n: number }) => Intl.n;
  const holder = { Intl: 1 }; const field = holder.Intl;
  return [u.href, clone, text, id, rnd, now, b64, es, options, local({ n: 1 }), field];
}
`;
  assert.equal(await problemsOf(source, 'wasm'), []);
});

check("should check a process build with Node's types when the project has them", async () => {
  // Inside the repository @types/node resolves from the entry's folder.
  const dir = join(REPO_ROOT, '.cache', `typecheck-process-${process.pid}`);
  const problems = await problemsOf(USES_MISSING.replace("    document.title,\n", '').replace('    window,\n', '').replace("  return [", "  Host.inputString();\n  return ["), 'process', dir);
  // Node has fetch, process, require, setImmediate, Buffer, Intl and Atomics; the Extism globals are wasm-only.
  assert.equal(problems.length, 1, problems.join('\n'));
  assert.match(problems[0]!, /^2: TS2304: Cannot find name 'Host'/);
});

check("should say to install Node's types when a process build's check lacks them", async () => {
  const problems = await problemsOf(USES_MISSING, 'process');
  const about = (name: string) => problems.find((p) => p.includes(`\`${name}\``));
  for (const name of ['fetch', 'process', 'require', 'setImmediate', 'Buffer']) assert.match(about(name) ?? `${name}: nothing`, /install .*@types\/node/);
  assert.not.ok(problems.some((p) => p.includes('wasm sandbox')), problems.join('\n'));
  assert.not.ok(problems.some((p) => /Intl|Atomics/.test(p)), 'Node has Intl and Atomics');
});

check.run();

const template = suite('guest types :: the mep init tsconfig and mep-runtime/guest-pdk/globals');

template("should give an extension project the sandbox's globals through the package export, with no DOM", () => {
  const project = tempDir();
  try {
    const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { exports: Record<string, { types?: string }> };
    const exported = pkg.exports['./guest-pdk/globals']?.types as string;
    assert.type(exported, 'string');
    // The package as installed: its package.json and the declarations where the build puts them.
    const installed = join(project, 'node_modules', 'mep-runtime');
    mkdirSync(installed, { recursive: true });
    writeFileSync(join(installed, 'package.json'), JSON.stringify({ name: 'mep-runtime', type: 'module', exports: { './guest-pdk/globals': pkg.exports['./guest-pdk/globals'] } }));
    assert.is(writeGuestTypes(join(installed, dirname(exported))), join(installed, exported));
    const files = scaffoldFiles('hello');
    writeFileSync(join(project, 'tsconfig.json'), files['tsconfig.json']!);
    mkdirSync(join(project, 'src'));
    writeFileSync(join(project, 'src', 'uses.ts'), `export const ok = [new URL('http://h/').host, setTimeout(() => {}, 1), [1].at(-1), structuredClone(1)];\nexport const bad = [fetch, document];\n`);
    const config = ts.getParsedCommandLineOfConfigFile(join(project, 'tsconfig.json'), undefined, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => assert.unreachable(String(d.messageText)) })!;
    assert.equal(config.errors, []);
    const program = ts.createProgram(config.fileNames, config.options);
    const problems = ts.getPreEmitDiagnostics(program).map((d) => `${d.code} ${d.file ? d.file.text.slice(d.start!, d.start! + d.length!) : ts.flattenDiagnosticMessageText(d.messageText, ' ')}`);
    assert.equal(problems, ['2304 fetch', '2584 document']);
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
});

template.run();

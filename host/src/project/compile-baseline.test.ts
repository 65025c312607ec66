import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineExtension, type NormalizedCompileParams } from '../../../guest-pdk/src/index.ts';
import type { CompileBaseline } from '../protocol/index.ts';
import { createSession } from '../session/session.ts';
import { createInProcessTransport } from '../testing/in-process-transport.ts';
import { compileBaselinePath, nextBaseline } from './compile-baseline.ts';
import { compileProject } from './index.ts';

// The user's mep home (where the key that signs baselines is kept), private to these tests.
process.env.MEP_HOME = await mkdtemp(join(tmpdir(), 'mep-home-'));

const IR = { formatVersion: 3, distribution: ['Library', [['acme']], [], { modules: [] }] };

/**
 * A frontend that records each request and answers module results for every document: `A` is
 * compiled on the first call and unchanged after; a document saying `fail` fails. Advertises
 * `incremental` as told (a non-incremental one answering module results anyway must still never
 * get a baseline).
 */
function frontend(incremental: boolean, id = 'test.incremental', keepsIr = false) {
  const seen: NormalizedCompileParams[] = [];
  const extension = defineExtension({
    info: { id, name: id, version: '1.0.0' },
    frontend: {
      languages: [{ id: 'elm', fileExtensions: ['.elm'] }],
      irVersions: ['3'],
      multiDocument: true,
      incremental,
      compile(params) {
        seen.push(params);
        const reused = new Set((params.baseline?.modules ?? []).map((m) => m.name));
        const moduleResults = params.sources.documents.map((d) => {
          const name = d.uri.replace(/^.*\/(\w+)\.elm$/, '$1');
          if (d.text.includes('fail')) return { name, uri: d.uri, status: 'failed' as const, sourceDigest: `d:${d.text}`, diagnostics: [] };
          if (reused.has(name) && params.baseline?.modules.find((m) => m.name === name)?.sourceDigest === `d:${d.text}`) return { name, uri: d.uri, status: 'unchanged' as const, sourceDigest: `d:${d.text}`, interfaceDigest: 'i' };
          return { name, uri: d.uri, status: 'compiled' as const, sourceDigest: `d:${d.text}`, interfaceDigest: 'i', dependsOn: [], ir: [[[name.toLowerCase()]], { text: d.text }] };
        });
        const failed = moduleResults.some((r) => r.status === 'failed');
        return { irVersion: '3', ir: IR, modules: [], moduleResults, contextDigest: 'ctx', ...(failed ? { success: false } : {}), ...(keepsIr ? { keptModuleIr: true } : {}) };
      },
    },
  });
  return { seen, session: createSession({ transport: createInProcessTransport(extension) }) };
}

async function withProject(files: Record<string, string>, fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'mep-baseline-'));
  try {
    await writeFile(join(dir, 'morphir.json'), JSON.stringify({ name: 'Acme', sourceDirectory: 'src' }));
    await mkdir(join(dir, 'src'));
    for (const [path, text] of Object.entries(files)) await writeFile(join(dir, 'src', path), text);
    await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function compileWith(fe: ReturnType<typeof frontend>, dir: string, baseline?: 'project' | 'none' | CompileBaseline) {
  await fe.session.start();
  try {
    return await compileProject(fe.session, dir, baseline === undefined ? {} : { baseline });
  } finally {
    await fe.session.close();
  }
}

const Baseline = suite('project compile baseline (incremental compiles, host side)');

Baseline('should send the last compile\'s module results back to an incremental frontend, and keep them in .mep/', async () => {
  await withProject({ 'A.elm': 'module A', 'B.elm': 'module B' }, async (dir) => {
    const fe = frontend(true);
    await compileWith(fe, dir);
    assert.is(fe.seen[0].baseline, undefined, 'the first compile has no baseline');
    const stored = JSON.parse(await readFile(compileBaselinePath(dir), 'utf8'));
    assert.is(stored.frontend, 'test.incremental@1.0.0');
    assert.is(stored.baseline.contextDigest, 'ctx');
    await writeFile(join(dir, 'src', 'B.elm'), 'module B -- edited');
    const second = frontend(true);
    const outcome = await compileWith(second, dir);
    const sent = second.seen[0].baseline!;
    assert.is(sent.contextDigest, 'ctx');
    assert.equal(sent.modules.map((m) => [m.name, m.sourceDigest]), [['A', 'd:module A'], ['B', 'd:module B']]);
    assert.equal(sent.modules[0].ir, [[['a']], { text: 'module A' }]);
    // A was unchanged: the baseline keeps the IR it had; B was compiled: its new IR.
    assert.equal(outcome.baseline!.modules.map((m) => [m.name, m.ir]), [['A', [[['a']], { text: 'module A' }]], ['B', [[['b']], { text: 'module B -- edited' }]]]);
  });
});

Baseline('should leave out, within one session, the IR of modules the frontend said it keeps, and only those', async () => {
  await withProject({ 'A.elm': 'module A', 'B.elm': 'module B' }, async (dir) => {
    for (const keepsIr of [true, false]) {
      const fe = frontend(true, 'test.incremental', keepsIr);
      await fe.session.start();
      try {
        const first = await compileProject(fe.session, dir, { baseline: { modules: [] }, output: false });
        const compile = (baseline: CompileBaseline | 'none') => compileProject(fe.session, dir, { baseline, output: false });
        const second = await compile(first.baseline!);
        const sentIr = (i: number) => fe.seen[i].baseline?.modules.map((m) => [m.name, m.ir !== undefined]);
        assert.equal(sentIr(1), [['A', !keepsIr], ['B', !keepsIr]], `keptModuleIr: ${keepsIr}`);
        // What the host keeps is the full baseline: every IR.
        assert.equal(second.baseline!.modules.map((m) => m.ir), [[[['a']], { text: 'module A' }], [[['b']], { text: 'module B' }]]);
        // An IR the caller replaced is not the one the frontend returned: sent.
        const changed = { ...second.baseline!, modules: second.baseline!.modules.map((m) => (m.name === 'B' ? { ...m, ir: [[['b']], { text: 'other' }] } : m)) };
        await compile(changed);
        assert.equal(sentIr(2), [['A', !keepsIr], ['B', true]]);
        // A compile in between without a baseline: the frontend's kept IR is of that one; all sent.
        await compile('none');
        await compile(second.baseline!);
        assert.equal(sentIr(4), [['A', true], ['B', true]]);
      } finally {
        await fe.session.close();
      }
    }
  });
});

Baseline('should never send a baseline to a frontend that does not advertise incremental, nor keep one for it', async () => {
  await withProject({ 'A.elm': 'module A' }, async (dir) => {
    await compileWith(frontend(true), dir);
    // The same id and version as the frontend that left the baseline, but not incremental.
    const plain = frontend(false);
    await plain.session.start();
    try {
      const outcome = await compileProject(plain.session, dir);
      await compileProject(plain.session, dir, { baseline: { modules: [{ name: 'A', ir: {} }], contextDigest: 'ctx' } });
      assert.equal(plain.seen.map((p) => p.baseline), [undefined, undefined]);
      assert.is(outcome.baseline, undefined);
    } finally {
      await plain.session.close();
    }
  });
});

Baseline('should not send one frontend\'s baseline to another, nor a corrupt or hostile file', async () => {
  await withProject({ 'A.elm': 'module A' }, async (dir) => {
    await compileWith(frontend(true), dir);
    const other = frontend(true, 'test.other');
    await compileWith(other, dir);
    assert.is(other.seen[0].baseline, undefined);
    for (const text of ['{not json', '{"format":"mep-compile-baseline/1","frontend":"test.other@1.0.0","baseline":{"modules":"x"}}', '{"__proto__":{},"format":"mep-compile-baseline/1"}']) {
      await writeFile(compileBaselinePath(dir), text);
      const fe = frontend(true, 'test.other');
      await compileWith(fe, dir);
      assert.is(fe.seen[0].baseline, undefined, text);
      assert.is(JSON.parse(await readFile(compileBaselinePath(dir), 'utf8')).frontend, 'test.other@1.0.0', 'replaced by a good one');
    }
  });
});

Baseline('should neither write nor read a baseline through a .mep that is a link out of the project', async () => {
  await withProject({ 'A.elm': 'module A' }, async (dir) => {
    const outside = await mkdtemp(join(tmpdir(), 'mep-outside-'));
    try {
      // A baseline a first run of this frontend would keep, planted where the link points.
      await withProject({ 'A.elm': 'module A' }, async (other) => {
        await compileWith(frontend(true), other);
        await writeFile(join(outside, 'compile-baseline.json'), await readFile(compileBaselinePath(other)));
      });
      const planted = await readFile(join(outside, 'compile-baseline.json'), 'utf8');
      await symlink(outside, join(dir, '.mep'));
      const fe = frontend(true);
      const outcome = await compileWith(fe, dir);
      assert.is(fe.seen[0].baseline, undefined, 'the baseline behind the link was not sent');
      assert.ok(outcome.baseline, 'the compile itself still gives the next baseline');
      assert.is(await readFile(join(outside, 'compile-baseline.json'), 'utf8'), planted, 'nothing written through the link');
      assert.equal(await readdir(outside), ['compile-baseline.json']);
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });
});

Baseline('should not send a baseline this user\'s mep did not write for this project (committed, copied, or edited), whatever it says', async () => {
  await withProject({ 'A.elm': 'module A' }, async (first) => {
    await compileWith(frontend(true), first);
    const written = await readFile(compileBaselinePath(first), 'utf8');
    await withProject({ 'A.elm': 'module A' }, async (dir) => {
      // Copied from another project (as a repository that commits .mep/ would bring it).
      await mkdir(join(dir, '.mep'));
      await writeFile(compileBaselinePath(dir), written);
      const copied = frontend(true);
      await compileWith(copied, dir);
      assert.is(copied.seen[0].baseline, undefined, 'a baseline of another project');
    });
    // Forged in place: the same file with another IR for module A (the frontend would take it as A's, unchanged).
    const forged = JSON.parse(written);
    forged.baseline.modules[0].ir = [[['a']], { text: 'forged' }];
    await writeFile(compileBaselinePath(first), JSON.stringify(forged));
    const edited = frontend(true);
    await compileWith(edited, first);
    assert.is(edited.seen[0].baseline, undefined, 'an edited baseline');
    // Its own, unchanged, is still sent.
    const again = frontend(true);
    await compileWith(again, first);
    assert.equal(again.seen[0].baseline?.modules[0]?.ir, [[['a']], { text: 'module A' }]);
  });
});

/** A file with the format and frontend mep writes and any signature, around `baseline` (as a cloned repository may ship it). */
const planted = (baseline: string, frontendKey = 'test.incremental@1.0.0'): string =>
  `{"format":"mep-compile-baseline/1","frontend":${JSON.stringify(frontendKey)},"signature":"${'0'.repeat(64)}","baseline":${baseline}}`;

Baseline('should ignore a planted baseline nested 200,000 levels deep, never parsed, not fail the compile :: deep', async () => {
  await withProject({ 'A.elm': 'module A' }, async (dir) => {
    await mkdir(join(dir, '.mep'));
    // 400 KB: the whole file was parsed and its baseline written again to check the signature,
    // and JSON.stringify overflowed the stack: every `mep compile` of the project ended in
    // "unexpected failure: RangeError: Maximum call stack size exceeded" (exit 3), for good.
    await writeFile(compileBaselinePath(dir), planted(`${'['.repeat(200_000)}${']'.repeat(200_000)}`));
    const fe = frontend(true);
    const outcome = await compileWith(fe, dir);
    assert.is(fe.seen[0].baseline, undefined);
    assert.ok(outcome.baseline, 'a full compile');
    assert.is(JSON.parse(await readFile(compileBaselinePath(dir), 'utf8')).baseline.contextDigest, 'ctx', 'replaced by a good one');
  });
});

Baseline('should check a baseline\'s signature before parsing it: a planted 24 MiB of empty objects costs no heap :: heap', async () => {
  await withProject({ 'A.elm': 'module A' }, async (dir) => {
    await mkdir(join(dir, '.mep'));
    // 8.4 million objects: parsed before the signature was checked (120 MiB of them took
    // `mep compile` to 4.06 GB of RSS and 77 s of CPU). Read under a 96 MiB heap, they do not fit.
    await writeFile(compileBaselinePath(dir), planted(`[{}${',{}'.repeat(8 * 1024 * 1024)}]`));
    const module = fileURLToPath(new URL('./compile-baseline.ts', import.meta.url));
    const script = `const { readCompileBaseline } = await import(${JSON.stringify(module)}); console.log(String(await readCompileBaseline(${JSON.stringify(dir)}, 'test.incremental@1.0.0')));`;
    const run = spawnSync(process.execPath, ['--max-old-space-size=96', '--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', env: process.env, timeout: 120_000 });
    assert.is(run.status, 0, `${run.stderr.slice(-600)}`);
    assert.is(run.stdout.trim(), 'undefined');
  });
});

Baseline('should keep the entry it trusted before for a module that failed', () => {
  const before: CompileBaseline = { contextDigest: 'ctx', modules: [{ name: 'A', sourceDigest: 'old', interfaceDigest: 'i', ir: ['old'] }, { name: 'B', sourceDigest: 'b', ir: ['b'] }] };
  const next = nextBaseline(before, {
    success: false,
    diagnostics: [],
    modules: ['B'],
    contextDigest: 'ctx',
    moduleResults: [
      { name: 'A', status: 'failed', sourceDigest: 'new' },
      { name: 'B', status: 'unchanged', sourceDigest: 'b' },
    ],
  })!;
  assert.equal(next.modules, [before.modules[0], { name: 'B', sourceDigest: 'b', ir: ['b'] }]);
  // Another context: nothing of the old baseline is kept.
  assert.equal(nextBaseline(before, { success: false, diagnostics: [], modules: [], contextDigest: 'other', moduleResults: [{ name: 'A', status: 'failed' }] })!.modules, []);
  assert.is(nextBaseline(before, { success: true, diagnostics: [], modules: [] }), undefined, 'no module results: nothing to keep');
});


Baseline('should write the baseline and the IR together, and settle both before the call does, also when the IR cannot be written', async () => {
  await withProject({ 'A.elm': 'module A' }, async (dir) => {
    const fe = frontend(true);
    await fe.session.start();
    try {
      // The output is a folder: the IR write fails, and the call with it, once the baseline is whole.
      await mkdir(join(dir, 'out.json'));
      const failing = compileProject(fe.session, dir, { output: join(dir, 'out.json') });
      await failing.then(() => assert.unreachable('the IR write into a folder should fail'), (e: NodeJS.ErrnoException) => assert.ok(e instanceof Error, String(e)));
      const stored = JSON.parse(await readFile(compileBaselinePath(dir), 'utf8'));
      assert.equal(stored.baseline.modules.map((m: { name: string }) => m.name), ['A']);
      const ok = await compileProject(fe.session, dir);
      assert.is(ok.output, join(dir, 'morphir-ir.json'));
      assert.equal(JSON.parse(await readFile(ok.output!, 'utf8')), IR);
      assert.equal((await readdir(join(dir, '.mep'))).sort(), ['compile-baseline.json']);
    } finally {
      await fe.session.close();
    }
  });
});

Baseline.run();

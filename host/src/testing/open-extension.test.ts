import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineExtension, textArtifact } from '../../../guest-pdk/src/index.ts';
import { buildGuest } from '../../../build/guest/index.ts';
import { ErrorCode, LocalErrorCode, isMepError } from '../protocol/errors.ts';
import { artifactText, minimalIr, openExtension, readIr, sampleIr } from './index.ts';

// A project on disk: a backend that lists the sample's modules, logs, reports progress, asks for
// a secret on request and throws on request (to see the mapped stack).
const SOURCE = `import { defineExtension, textArtifact } from 'mep-runtime/guest-pdk';
import { names } from './names.ts';

export default defineExtension({
  info: { id: 'kit', name: 'kit', version: '1.0.0' },
  backend: {
    targets: ['kit'],
    irVersions: ['3'],
    async generate({ ir, options }, ctx) {
      ctx.progress('begin', 'listing');
      ctx.log('info', 'hello from the guest');
      if (options.secret) return { artifacts: [textArtifact('secret.txt', await ctx.secret('env("KIT")'))] };
      if (options.fail) throw new Error('asked to fail');
      return { artifacts: [textArtifact('modules.txt', names(ir).join('\\n'))] };
    },
  },
});
`;
const NAMES = `export function names(ir: unknown): string[] {
  const modules = ((ir as { distribution: [unknown, unknown, unknown, { modules: [string[][], unknown][] }] }).distribution[3].modules);
  return modules.map(([path]) => path.map((words) => words.join('-')).join('.'));
}
`;

const root = mkdtempSync(join(tmpdir(), 'mep-kit-'));
mkdirSync(join(root, 'src'));
writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'kit', private: true, type: 'module' }));
writeFileSync(join(root, 'src', 'extension.ts'), SOURCE);
writeFileSync(join(root, 'src', 'names.ts'), NAMES);
const entry = join(root, 'src', 'extension.ts');

/** Runs `fn` with the temporary folder of builds pointed at a folder of its own, and lists what it left there. */
async function inOwnTmp(fn: () => Promise<void>): Promise<string[]> {
  const own = mkdtempSync(join(root, 'tmp-'));
  const saved = process.env.TMPDIR;
  process.env.TMPDIR = own;
  try {
    await fn();
  } finally {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
  }
  return readdirSync(own);
}

const Kit = suite('mep-runtime/testing :: openExtension');
const Ir = suite('mep-runtime/testing :: sample IR');
Ir.after(() => rmSync(root, { recursive: true, force: true }));

for (const runtime of ['wasm', 'process'] as const) {
  Kit(`should build a TypeScript entry, run its operations and leave nothing behind :: ${runtime}`, async () => {
    let artifact: string | undefined;
    const left = await inOwnTmp(async () => {
      const printed: string[] = [];
      const extension = await openExtension('src/extension.ts', { runtime, cwd: root, verbose: (line) => printed.push(line) });
      try {
        artifact = extension.artifact;
        assert.is(extension.runtime, runtime);
        assert.is(extension.initialize.extension.id, 'kit');
        const result = await extension.generate({ ir: sampleIr() });
        assert.is(result.success, true);
        assert.is(artifactText(result, 'modules.txt'), 'customer');
        assert.equal(extension.logs.map((l) => l.message), ['hello from the guest']);
        assert.is(extension.progress[0]?.kind, 'begin');
        // Where the call spent its time: the extension's own stage, and in wasm its memory.
        const stages = extension.lastCall?.stages.map((st) => st.name) ?? [];
        assert.ok(stages.includes('listing'), stages.join(', '));
        assert.is(typeof extension.lastCall?.guestMemoryBytes, runtime === 'wasm' ? 'number' : 'undefined');
        assert.ok(printed.length >= stages.length + 1);
        // Its memory, printed as mep --verbose prints it: the guest's, or the extension process's own.
        assert.ok(printed.some((l) => (runtime === 'wasm' ? /^guest memory: peak/ : /^process memory: peak [\d.]+ MiB resident/).test(l)), printed.join('\n'));
        const unknown = await extension.call('acme.nope', {}).catch((e: unknown) => e);
        assert.ok(isMepError(unknown) && unknown.code === ErrorCode.MethodNotFound, String(unknown));
        // Errors name the author's sources.
        const failed = await extension.generate({ ir: minimalIr(), options: { fail: true } }).catch((e: unknown) => e);
        assert.ok(isMepError(failed));
        assert.is((failed.data as { origin?: { file: string } }).origin?.file, 'src/extension.ts');
      } finally {
        await extension.close();
        await extension.close();
      }
    });
    assert.ok(artifact !== undefined && !existsSync(artifact), 'the built artifact is gone');
    assert.equal(left, [], 'no temporary folder left');
  });
}

Kit('should open a built artifact, wasm bytes and a compiled module', async () => {
  const wasm = join(root, 'dist', 'kit.wasm');
  await buildGuest({ entry, outFile: wasm, cwd: root, typecheck: false });
  const bytes = readFileSync(wasm);
  for (const target of [wasm, new URL(`file://${wasm}`), new Uint8Array(bytes), bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length), await WebAssembly.compile(bytes)]) {
    const extension = await openExtension(target, { isolation: 'inline', limits: { callTimeoutMs: 10_000 } });
    try {
      assert.is(extension.runtime, 'wasm');
      assert.is(artifactText(await extension.generate({ ir: minimalIr({ modules: ['orders', 'billing.invoices'] }) }), 'modules.txt'), 'orders\nbilling.invoices');
    } finally {
      await extension.close();
    }
  }
});

Kit('should run an extension object in this realm, with Symbol.asyncDispose', async () => {
  const extension = await openExtension(
    defineExtension({
      info: { id: 'object', name: 'object', version: '1.0.0' },
      backend: { targets: ['a', 'b'], irVersions: ['3'], generate: ({ target }) => ({ artifacts: [textArtifact(`${target}.txt`, target)] }) },
    }),
  );
  assert.is(extension.runtime, 'in-process');
  assert.is(extension.artifact, undefined);
  const noTarget = await extension.generate({ ir: minimalIr() }).catch((e: unknown) => e);
  assert.ok(isMepError(noTarget) && noTarget.code === LocalErrorCode.Usage, 'two targets: the test must name one');
  assert.is(artifactText(await extension.generate({ ir: minimalIr(), target: 'b' }), 'b.txt'), 'b');
  await extension[Symbol.asyncDispose]();
  assert.is(extension.session.state, 'stopped');
});

Kit('should deny secrets unless the test answers them', async () => {
  const denied = await openExtension(entry, { runtime: 'process' });
  try {
    const error = await denied.generate({ ir: minimalIr(), options: { secret: true } }).catch((e: unknown) => e);
    assert.ok(isMepError(error), String(error));
  } finally {
    await denied.close();
  }
  const granted = await openExtension(entry, { resolveSecret: (reference) => `value of ${reference}` });
  try {
    assert.is(artifactText(await granted.generate({ ir: minimalIr(), options: { secret: true } }), 'secret.txt'), 'value of env("KIT")');
  } finally {
    await granted.close();
  }
});

Kit('should refuse what it cannot open with a usage or build error, leaving nothing behind :: hostile', async () => {
  const broken = join(root, 'src', 'broken.ts');
  writeFileSync(broken, 'export default defineExtension({ info: ');
  const left = await inOwnTmp(async () => {
    const cases: [() => Promise<unknown>, string][] = [
      [() => openExtension(broken), LocalErrorCode.Build],
      [() => openExtension(join(root, 'dist', 'kit.wasm'), { runtime: 'process' }), LocalErrorCode.Usage],
      [() => openExtension(defineExtension({ info: { id: 'x', name: 'x', version: '1.0.0' }, backend: { targets: ['x'], irVersions: ['3'], generate: () => ({ artifacts: [] }) } }), { runtime: 'wasm' }), LocalErrorCode.Usage],
      [() => openExtension(new Uint8Array([0, 97, 115, 109]), { runtime: 'process' }), LocalErrorCode.Usage],
      [() => openExtension(join(root, 'missing.wasm')), LocalErrorCode.Usage],
    ];
    for (const [open, code] of cases) {
      const error = await open().then(async (e) => (e as { close(): Promise<void> }).close().then(() => 'opened'), (e: unknown) => e);
      assert.ok(isMepError(error), String(error));
      assert.is(error.code, code, error.message);
    }
  });
  assert.equal(left, []);
});

Ir('should hand out a fresh copy of the real sample each time', () => {
  const a = sampleIr();
  a.distribution.length = 0;
  assert.is(sampleIr().formatVersion, 3);
  assert.is((sampleIr().distribution[3] as { modules: unknown[] }).modules.length, 1);
});

Ir('should read an IR file and refuse one that is not :: hostile', async () => {
  writeFileSync(join(root, 'ir.json'), JSON.stringify(minimalIr({ packageName: 'acme.orders', modules: ['order-lines'] })));
  const ir = await readIr('ir.json', root);
  assert.equal(ir.distribution.slice(0, 2), ['Library', [['acme'], ['orders']]]);
  assert.equal((ir.distribution[3] as { modules: [unknown][] }).modules[0]?.[0], [['order', 'lines']]);
  writeFileSync(join(root, 'not-ir.json'), '[1, 2]');
  for (const file of ['not-ir.json', 'absent.json']) {
    const error = await readIr(file, root).catch((e: unknown) => e);
    assert.ok(isMepError(error) && error.code === LocalErrorCode.Usage, String(error));
  }
});

Kit.run();
Ir.run();

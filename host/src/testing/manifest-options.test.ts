import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { artifactText, minimalIr, openExtension, type TestExtension } from './index.ts';

const Manifest = suite('testing :: extension.json applies as installed');

/** 2000-01-01T00:00:00Z: where the virtual clock starts without the clock grant. */
const VIRTUAL_START = 946_684_800_000;

const SOURCE = `import { defineExtension, textArtifact } from 'mep-runtime/guest-pdk';
export default defineExtension({
  info: { id: 'clock-probe', name: 'clock-probe', version: '0.1.0' },
  backend: {
    targets: ['now'],
    irVersions: ['3'],
    generate({ options }) {
      if (options?.spin) for (;;) {}
      return { artifacts: [textArtifact('now.txt', String(Date.now()))] };
    },
  },
});
`;

async function project(manifest: Record<string, unknown>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'mep-kit-manifest-'));
  await mkdir(join(dir, 'src'));
  await writeFile(join(dir, 'package.json'), '{"type":"module"}');
  await writeFile(join(dir, 'extension.json'), JSON.stringify({ id: 'clock-probe', name: 'clock-probe', version: '0.1.0', runtime: 'wasm', entry: 'dist/extension.wasm', ...manifest }));
  await writeFile(join(dir, 'src/extension.ts'), SOURCE);
  return dir;
}

const now = async (extension: TestExtension): Promise<number> => Number(artifactText(await extension.generate({ ir: minimalIr() }), 'now.txt'));

Manifest('should grant in a test the clock extension.json grants, in both runtimes, unless the test says otherwise', async () => {
  const dir = await project({ permissions: { clock: true } });
  try {
    for (const runtime of ['wasm', 'process'] as const) {
      const granted = await openExtension(join(dir, 'src/extension.ts'), { runtime });
      try {
        assert.ok((await now(granted)) > VIRTUAL_START + 365 * 86_400_000, `${runtime}: the wall clock`);
      } finally {
        await granted.close();
      }
    }
    const ignored = await openExtension(join(dir, 'src/extension.ts'), { manifest: false });
    try {
      assert.is(await now(ignored), VIRTUAL_START, 'manifest: false applies none');
    } finally {
      await ignored.close();
    }
    const overridden = await openExtension(join(dir, 'src/extension.ts'), { grants: { clock: false } });
    try {
      assert.is(await now(overridden), VIRTUAL_START, "the test's own grants win");
    } finally {
      await overridden.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

Manifest("should apply extension.json's limits (a call timeout) to a test", async () => {
  // The bound holds initialize too: 500 ms was less than a process extension's start under a load
  // of 20 (the test then failed in openExtension); 2 s is still far below the 30 s default.
  const dir = await project({ limits: { callTimeoutMs: 2_000 } });
  try {
    const extension = await openExtension(join(dir, 'src/extension.ts'), { runtime: 'process' });
    try {
      let failure: Error | undefined;
      await extension.generate({ ir: minimalIr(), options: { spin: true } }).catch((e: Error) => (failure = e));
      assert.match(String(failure?.message), /2,?000 ?ms|callTimeoutMs|timed out/i);
    } finally {
      await extension.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

Manifest('should refuse an invalid extension.json by name, and read one named explicitly', async () => {
  const dir = await project({ runtime: 'jvm' });
  try {
    let failure: Error | undefined;
    await openExtension(join(dir, 'src/extension.ts')).catch((e: Error) => (failure = e));
    assert.match(String(failure?.message), /extension\.json/);
    const elsewhere = await project({ permissions: { clock: true } });
    try {
      const extension = await openExtension(join(dir, 'src/extension.ts'), { manifest: join(elsewhere, 'extension.json') });
      try {
        assert.ok((await now(extension)) > VIRTUAL_START);
      } finally {
        await extension.close();
      }
    } finally {
      await rm(elsewhere, { recursive: true, force: true });
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

Manifest.run();

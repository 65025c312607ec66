import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sourcesAtMost } from './compile-tier.ts';

function project(files: Record<string, number>, manifest: Record<string, unknown> = { name: 'Acme', sourceDirectory: 'src' }): string {
  const dir = mkdtempSync(join(tmpdir(), 'mep-tier-'));
  writeFileSync(join(dir, 'morphir.json'), JSON.stringify(manifest));
  for (const [path, size] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), 'x'.repeat(size));
  }
  return dir;
}

test('should find a project whose sources are within the bound small', async () => {
  const dir = project({ 'src/Acme/A.elm': 3000, 'src/Acme/B.elm': 3000, 'morphir-ir.json': 5_000_000 });
  try {
    assert.ok(await sourcesAtMost(dir, 'src', 10_000));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('should not when the sources are above it, or there are more files than it walks', async () => {
  const dir = project({ 'src/A.elm': 6000, 'src/Deep/B.elm': 6000 });
  const many = project(Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`src/M${i}.elm`, 1])));
  try {
    assert.not.ok(await sourcesAtMost(dir, 'src', 10_000));
    assert.not.ok(await sourcesAtMost(many, 'src', 10_000, 20));
    assert.ok(await sourcesAtMost(many, 'src', 10_000, 40));
  } finally {
    rmSync(dir, { recursive: true, force: true });
    rmSync(many, { recursive: true, force: true });
  }
});

test('should not when the source folder is missing, outside the project, or a link', async () => {
  const dir = project({ 'src/A.elm': 10, 'elsewhere/B.elm': 10 });
  try {
    assert.not.ok(await sourcesAtMost(dir, 'nowhere', 10_000));
    assert.not.ok(await sourcesAtMost(join(dir, 'src'), '../elsewhere', 10_000));
    symlinkSync(join(dir, 'elsewhere'), join(dir, 'linked'));
    assert.not.ok(await sourcesAtMost(dir, 'linked', 10_000));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();

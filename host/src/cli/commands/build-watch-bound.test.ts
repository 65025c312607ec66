// `mep build --watch` over a build that read files in more folders than it may watch: each folder
// of the build's inputs took one inotify watch, without a bound (a cloned project whose entry
// imports 3,000 modules in 3,000 folders held 3,001 watches; the user's `max_user_watches`, 8,192
// on many systems, is shared with every editor and tool of theirs). The watch runs in this process
// (watchBuild, as the CLI wires it) on real folders; the build only reports what it read.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LONG_TESTS } from '../../../../fixtures/testing/tier.ts';
import { HOST_FILE_LIMITS } from '../../protocol/limits.ts';
import { captureIo } from '../io.ts';
import { inotifyWatches } from '../testing/inotify.ts';
import { watchBuild } from './build-watch.ts';

const Bound = suite('cli :: mep build --watch holds at most watchedFolders inotify watches');

Bound('should watch at most watchedFolders folders of what the build read, the shallowest with the entry\'s, say how many are left, and still see an edit of the entry :: watchedFolders', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mep-watch-bound-'));
  const controller = new AbortController();
  try {
    const entry = join(dir, 'main.ts');
    writeFileSync(entry, 'one');
    // The bound the CLI uses under `npm run test:long`; a small one (the same code) in `npm test`.
    const max = LONG_TESTS ? HOST_FILE_LIMITS.watchedFolders : 64;
    const folders = max + (LONG_TESTS ? 500 : 36);
    const inputs = [entry];
    for (let i = 0; i < folders; i++) {
      mkdirSync(join(dir, 'lib', String(i)), { recursive: true });
      inputs.push(join(dir, 'lib', String(i), 'm.ts'));
      writeFileSync(inputs[inputs.length - 1]!, '');
    }
    const io = captureIo(dir);
    let builds = 0;
    const before = inotifyWatches();
    const done = watchBuild(io, {
      entry,
      signal: controller.signal,
      ...(LONG_TESTS ? {} : { maxWatchedFolders: max }),
      build: async (publish) => {
        builds++;
        await publish;
        return { summary: 'Built', inputs };
      },
    });
    const until = async (what: string, test: () => boolean): Promise<void> => {
      for (let i = 0; i < 2400 && !test(); i++) await new Promise((r) => setTimeout(r, 25));
      assert.ok(test(), `timed out waiting for ${what}: ${[...io.stdout, ...io.stderr].join('\n')}`);
    };
    await until('the first build', () => io.stderr.some((l) => l.includes('watching main.ts')));
    const held = inotifyWatches() - before;
    assert.ok(held <= max, `held ${held} inotify watches for ${folders + 1} folders`);
    assert.ok(
      io.stderr.some((l) => l.includes(`watching the ${max} shallowest folders`) && l.includes(`${folders + 1 - max} more are not watched`)),
      io.stderr.join('\n'),
    );
    // The entry's folder is among those watched: an edit of it builds again.
    writeFileSync(entry, 'two');
    await until('a build after the edit', () => builds === 2 && io.stdout.length === 2);
    controller.abort();
    await done;
    assert.is(inotifyWatches(), before, 'every watch closed');
  } finally {
    controller.abort();
    rmSync(dir, { recursive: true, force: true });
  }
});

Bound.run();

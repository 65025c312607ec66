import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { runPublishKills } from './testing/publish-kill.ts';

// The long run: npm run publish-kill (100,000 files, 40 kills; --files, --kills, --seed). Here 300
// files (a kill at a seeded file still lands mid-write, 8 files at a time), each case a child that
// stages them and the test reads back both trees: 1,000 cost 31 CPU s, 300 cost 12.
const Kill = suite('publication :: killed at seeded moments');

Kill('should leave exactly the old or the new tree, and nothing beside it, whenever the writer is killed :: signals', async () => {
  const { failures, old, new: fresh } = await runPublishKills({ files: 300, cases: 10, seed: 22 });
  assert.equal(failures, []);
  assert.ok(old > 0 && fresh > 0, `both outcomes were exercised (old ${old}, new ${fresh})`);
});

Kill.run();

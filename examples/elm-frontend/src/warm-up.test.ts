import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { ElmBuildOutcome } from './elm-worker.ts';
import { createElmWorker } from './elm-worker.ts';
import { QUIET, workerCode } from './testing.ts';
import { createTimerQueue } from './timer-queue.ts';
import { warmUp } from './warm-up.ts';

const order = 'module Acme.Shop.Order exposing (Order, total)\n\ntype alias Order =\n    { qty : Int, price : Float }\n\n\ntotal : Order -> Float\ntotal o =\n    toFloat o.qty * o.price\n';
const input = { options: { typesOnly: false }, packageInfo: { name: 'Acme.Shop' }, dependencies: [], fileSnapshot: { 'src/Acme/Shop/Order.elm': order } };
const fresh = () => createElmWorker(workerCode(), createTimerQueue(), QUIET);
const ir = (o: ElmBuildOutcome | Promise<ElmBuildOutcome>): string => {
  assert.ok(!(o instanceof Promise) && o.kind === 'built', JSON.stringify(o).slice(0, 300));
  return JSON.stringify((o as { distribution: unknown }).distribution);
};

const warm = suite('warmUp (examples/elm-frontend/src/warm-up.ts)');

warm('should compile its project, and leave the worker building what a fresh one builds', () => {
  const worker = fresh();
  assert.is(warmUp(worker), true, 'the warm-up project compiles');
  assert.is(worker.lastBuilt()?.context, undefined, 'kept under no context: no later build can reuse it');
  assert.is(ir(worker.build(input)), ir(fresh().build(input)));
});

warm('should not reuse the warm-up build\'s repository for an incremental build', () => {
  const worker = fresh();
  warmUp(worker);
  // A build asking to reuse a repository kept under its context gets none: the warm-up's has none.
  const outcome = worker.build({ ...input, fileChanges: { 'src/Acme/Shop/Order.elm': ['Insert', order] }, distribution: { formatVersion: 3, distribution: ['Library', [['acme'], ['shop']], [], { modules: [] }] }, context: 'c', reuse: { '[["warm"],["up"]]': 'Public' } });
  const text = ir(outcome);
  assert.not.ok(text.includes('"warm"'), 'the warm-up module is not in the result');
});

warm.run();

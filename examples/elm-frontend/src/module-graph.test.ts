import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { NormalizedCompileParams } from '../../../guest-pdk/src/index.ts';
import { createSourceDigests, digestOf, moduleGraph } from './module-graph.ts';
import { layoutPackage } from './package-layout.ts';

const doc = (uri: string, text: string) => ({ uri, languageId: 'elm', version: 1, text });
const params = (texts: Record<string, string>): NormalizedCompileParams => ({
  languageId: 'elm',
  sources: { root: 'file:///w/', documents: Object.entries(texts).map(([path, text]) => doc(`file:///w/${path}`, text)) },
  package: { name: 'Acme' },
});
const A = 'module Acme.A exposing (a)\n\na = 1\n';
const B = 'module Acme.B exposing (b)\n\nimport Acme.A\n\nb = Acme.A.a\n';

const Graph = suite('moduleGraph: source digests');

Graph('should digest only the texts the last compile did not have, and give what digestOf gives', () => {
  const digests = createSourceDigests();
  const first = moduleGraph(layoutPackage(params({ 'Acme/A.elm': A, 'Acme/B.elm': B })), digests);
  assert.is(digests.computed, 2);
  assert.is(first.get('A')!.sourceDigest, digestOf(A));
  assert.equal(first.get('B')!.dependsOn, ['A']);
  // The same texts (new strings, as a next request parses them): nothing digested again.
  moduleGraph(layoutPackage(params({ 'Acme/A.elm': A.slice(0), 'Acme/B.elm': `${B} `.trimEnd() + '\n' })), digests);
  assert.is(digests.computed, 2);
  // One text edited: that one only, and its digest is the edited text's.
  const edited = `${B}\nc = 2\n`;
  const second = moduleGraph(layoutPackage(params({ 'Acme/A.elm': A, 'Acme/B.elm': edited })), digests);
  assert.is(digests.computed, 3);
  assert.is(second.get('B')!.sourceDigest, digestOf(edited));
  assert.is.not(second.get('B')!.sourceDigest, first.get('B')!.sourceDigest);
});

Graph('should remember only the last compile\'s texts (a text back after one compile without it is digested again)', () => {
  const digests = createSourceDigests();
  moduleGraph(layoutPackage(params({ 'Acme/A.elm': A, 'Acme/B.elm': B })), digests);
  moduleGraph(layoutPackage(params({ 'Acme/A.elm': A })), digests);
  assert.is(digests.computed, 2);
  const back = moduleGraph(layoutPackage(params({ 'Acme/A.elm': A, 'Acme/B.elm': B })), digests);
  assert.is(digests.computed, 3);
  assert.is(back.get('B')!.sourceDigest, digestOf(B));
});

Graph.run();

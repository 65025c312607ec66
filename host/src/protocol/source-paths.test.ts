import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ErrorCode, isMepError } from './errors.ts';
import { sourcePaths } from './source-paths.ts';
import type { CompileSources } from './compile-params.ts';

const doc = (uri: string) => ({ uri, languageId: 'elm', version: 1, text: '' });
const paths = (sources: CompileSources) => sourcePaths(sources).map((p) => p.path);

function refused(sources: CompileSources): { uri?: unknown } {
  try {
    sourcePaths(sources);
  } catch (error) {
    assert.ok(isMepError(error));
    assert.is(error.code, ErrorCode.InvalidParams);
    return error.data as { uri?: unknown };
  }
  assert.unreachable(`expected a refusal of ${JSON.stringify(sources)}`);
  return {};
}

const Paths = suite('sourcePaths');

Paths('should identify documents by their path below the root, with or without its trailing slash', () => {
  const documents = [doc('file:///work/src/Acme/Orders.elm'), doc('file:///work/src/Main.elm')];
  assert.equal(paths({ root: 'file:///work/src', documents }), ['Acme/Orders.elm', 'Main.elm']);
  assert.equal(paths({ root: 'file:///work/src/', documents }), ['Acme/Orders.elm', 'Main.elm']);
});

Paths('should decode each segment once and ignore query and fragment', () => {
  assert.equal(paths({ root: 'file:///w', documents: [doc('file:///w/My%20Dir/A%2525.elm?v=2#top')] }), ['My Dir/A%25.elm']);
});

Paths('should keep one absolute document without a root by its base name', () => {
  assert.equal(paths({ documents: [doc('file:///work/Example.elm')] }), ['Example.elm']);
});

Paths('should keep the nesting of relative document paths', () => {
  assert.equal(paths({ documents: [doc('Acme/A.elm'), doc('B.elm')] }), ['Acme/A.elm', 'B.elm']);
});

Paths('should read absolute native paths as file paths', () => {
  assert.equal(paths({ root: 'file:///work', documents: [doc('/work/A.elm')] }), ['A.elm']);
  assert.equal(paths({ root: 'C:\\work', documents: [doc('C:\\work\\Sub\\A.elm'), doc('file:///C:/work/B.elm')] }), ['Sub/A.elm', 'B.elm']);
});

Paths('should compare scheme and authority without case', () => {
  assert.equal(paths({ root: 'FILE://Host/w', documents: [doc('file://host/w/A.elm')] }), ['A.elm']);
});

Paths('should need a root for several absolute documents', () => {
  refused({ documents: [doc('file:///a/A.elm'), doc('file:///a/B.elm')] });
});

Paths('should refuse documents outside the root: another path, scheme or authority, or a sibling prefix', () => {
  const root = 'file:///work/src';
  for (const uri of ['file:///work/other/A.elm', 'untitled:///work/src/A.elm', 'file://host/work/src/A.elm', 'file:///work/srcs/A.elm']) {
    assert.is(refused({ root, documents: [doc(uri)] }).uri, uri);
  }
});

Paths('should refuse dot segments, empty segments, encoded separators, bad escapes and bad UTF-8', () => {
  const root = 'file:///w';
  for (const uri of ['file:///w/a/../A.elm', 'file:///w/./A.elm', 'file:///w/%2e%2e/A.elm', 'file:///w/a//A.elm', 'file:///w/a%2FA.elm', 'file:///w/a%5cA.elm', 'file:///w/%zzA.elm', 'file:///w/%C3A.elm', 'file:///w/', 'a\\b.elm']) {
    assert.is(refused({ root, documents: [doc(uri)] }).uri, uri, uri);
  }
});

Paths('should refuse two documents with one identity, naming both', () => {
  const data = refused({ root: 'file:///w', documents: [doc('file:///w/A.elm'), doc('file:///w/A.elm?x')] }) as { uri: string; other: string };
  assert.is(data.other, 'file:///w/A.elm');
  assert.is(data.uri, 'file:///w/A.elm?x');
});

Paths('should refuse a root that is not absolute', () => {
  refused({ root: 'src', documents: [doc('src/A.elm')] });
});

Paths.run();

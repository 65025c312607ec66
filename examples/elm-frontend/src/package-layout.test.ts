import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { NormalizedCompileParams } from '../../../guest-pdk/src/index.ts';
import { ErrorCode, isMepError } from '../../../host/src/protocol/errors.ts';
import { layoutPackage } from './package-layout.ts';

const doc = (uri: string, text: string) => ({ uri, languageId: 'elm', version: 1, text });
const params = (documents: ReturnType<typeof doc>[], name = 'local/example'): NormalizedCompileParams => ({ languageId: 'elm', sources: { root: 'file:///w/', documents }, package: { name } });

const Layout = suite('layoutPackage');

Layout('should read module names as relative to a package none of them starts with', () => {
  const main = 'module Main exposing (x)\n\nimport Util\nimport Util as U\nimport Dict\n\nx = 1\n';
  const layout = layoutPackage(params([doc('file:///w/Main.elm', main), doc('file:///w/Util.elm', 'module Util exposing (y)\ny = 2\n')]));
  assert.ok(layout.relative);
  assert.is(layout.fileSnapshot['Main.elm'], 'module Local.Example.Main exposing (x)\n\nimport Local.Example.Util as Util\nimport Local.Example.Util as U\nimport Dict\n\nx = 1\n');
  const m = layout.byCompiledName('Local.Example.Main')!;
  assert.equal(m.path, [['main']]);
  assert.is(layout.byPath([['util']])?.document.uri, 'file:///w/Util.elm');
  // `import Local.Example.Util as Util`: Util at 21 in the compiled line, 7 in the document's.
  assert.equal(m.toDocument({ line: 2, character: 21 }), { line: 2, character: 7 });
  // Inside the inserted prefix or the added alias: where it was inserted.
  assert.equal(m.toDocument({ line: 2, character: 10 }), { line: 2, character: 7 });
  assert.equal(m.toDocument({ line: 2, character: 30 }), { line: 2, character: 11 });
  assert.equal(m.toDocument({ line: 0, character: 26 }), { line: 0, character: 12 });
  assert.equal(m.toDocument({ line: 6, character: 0 }), { line: 6, character: 0 });
});

Layout('should leave a project whose modules start with the package name as it is', () => {
  const text = 'module Acme.Shop.Money exposing (m)\nm = 1\n';
  const layout = layoutPackage(params([doc('file:///w/Acme/Shop/Money.elm', text)], 'Acme.Shop'));
  assert.not.ok(layout.relative);
  assert.equal(layout.fileSnapshot, { 'Acme/Shop/Money.elm': text });
  assert.equal(layout.modules[0].path, [['money']]);
  assert.equal(layout.diagnostics, []);
});

Layout('should key documents by identity, ending in .elm, and refuse two that read alike', () => {
  const text = 'module A exposing (a)\na = 1\n';
  assert.equal(Object.keys(layoutPackage(params([doc('file:///w/sub/A', text)])).fileSnapshot), ['sub/A.elm']);
  try {
    layoutPackage(params([doc('file:///w/A', text), doc('file:///w/A.elm', 'module B exposing (b)\nb = 1\n')]));
    assert.unreachable();
  } catch (error) {
    assert.ok(isMepError(error));
    assert.is(error.code, ErrorCode.InvalidParams);
  }
});

Layout('should keep a document without a readable header for the compiler to report', () => {
  const layout = layoutPackage(params([doc('file:///w/Broken.elm', 'modul Broken\n')]));
  assert.is(layout.modules.length, 1);
  assert.is(layout.modules[0].compiledName, undefined);
  assert.is(layout.byKey('Broken.elm')?.document.uri, 'file:///w/Broken.elm');
});

Layout('should refuse a package name without words', () => {
  for (const name of ['', '...', ' - ']) {
    try {
      layoutPackage(params([doc('file:///w/A.elm', 'module A exposing (a)\na = 1\n')], name));
      assert.unreachable(name);
    } catch (error) {
      assert.ok(isMepError(error) && error.code === ErrorCode.InvalidParams, name);
    }
  }
});

Layout.run();

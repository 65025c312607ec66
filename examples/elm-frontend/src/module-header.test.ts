import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readModuleHeader } from './module-header.ts';

const Header = suite('readModuleHeader');

Header('should read the name, its offsets and the exposing list', () => {
  const text = 'module Acme.Shop.Billing exposing (Invoice, Status(..), total, (+++))\n\ntotal = 1\n';
  const h = readModuleHeader(text)!;
  assert.is(h.kind, 'module');
  assert.is(h.name, 'Acme.Shop.Billing');
  assert.is(text.slice(h.nameStart, h.nameEnd), 'Acme.Shop.Billing');
  assert.equal(h.exposing, { all: false, values: ['total'], types: [{ name: 'Invoice', open: false }, { name: 'Status', open: true }], operators: ['+++'] });
  assert.equal(h.imports, []);
});

Header('should skip comments, doc comments and nested comments anywhere in the header', () => {
  const text = '-- a line comment\n{- outer {- nested -} still -}\nport module {- x -} Main exposing\n    ( .. -- all\n    )\n\n{-| Docs.\n\nimport NotAnImport\n-}\n\nimport Dict exposing (Dict)\n-- between\nimport Acme.Util as U\n';
  const h = readModuleHeader(text)!;
  assert.is(h.kind, 'port');
  assert.is(h.name, 'Main');
  assert.ok(h.exposing.all);
  assert.equal(
    h.imports.map((i) => [i.module, i.alias, text.slice(i.start, i.end)]),
    [
      ['Dict', undefined, 'Dict'],
      ['Acme.Util', 'U', 'Acme.Util'],
    ],
  );
  assert.equal(h.imports[0].exposing?.types, [{ name: 'Dict', open: false }]);
});

Header('should read an effect module with its where clause', () => {
  const h = readModuleHeader('effect module Task where { command = MyCmd } exposing (Task, perform)\n')!;
  assert.is(h.kind, 'effect');
  assert.equal(h.exposing.values, ['perform']);
});

Header('should stop at the first declaration', () => {
  const h = readModuleHeader('module A exposing (x)\nimport B\nx = 1\nimport C\n')!;
  assert.equal(h.imports.map((i) => i.module), ['B']);
});

Header('should give undefined when there is no module header', () => {
  for (const text of ['', 'x = 1', 'module exposing (x)', 'module a exposing (x)', 'module A (x)', 'module A exposing x', 'module A exposing (x', '{- unclosed module A exposing (x)', 'modules A exposing (x)']) {
    assert.is(readModuleHeader(text), undefined, JSON.stringify(text));
  }
});

Header('should not take a keyword prefix as the keyword', () => {
  assert.is(readModuleHeader('portmodule A exposing (x)'), undefined);
  assert.is(readModuleHeader('module A exposing (x)\nimported = 1\n')!.imports.length, 0);
});

Header('should count offsets in UTF-16 units after non-BMP characters in comments', () => {
  const text = '-- 😀😀\nmodule A exposing (x)\n';
  const h = readModuleHeader(text)!;
  assert.is(text.slice(h.nameStart, h.nameEnd), 'A');
});

Header.run();

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { LocalErrorCode } from '../protocol/errors.ts';
import { artifactBytes, createArtifactValidator, validateArtifacts } from './validate.ts';
import { thrownCode } from '../../../fixtures/testing/error-codes.ts';

const text = (path: string, content = 'x') => ({ path, content, binary: false });
const codeOf = thrownCode;

const Validate = suite('validateArtifacts');

Validate('should keep every artifact as returned, without encoding it', () => {
  const content = 'é'.repeat(10);
  const checked = validateArtifacts('ext', [text('a/b.avsc', content), { path: 'c.bin', content: 'AAEC\n/w==', binary: true }]);
  assert.is(checked.extension, 'ext');
  assert.equal(
    checked.files.map((f) => [f.path, f.binary]),
    [['a/b.avsc', false], ['c.bin', true]],
  );
  assert.is(checked.files[0]?.content, content, 'the same string, not a copy in bytes');
  assert.is(checked.files[1]?.content, 'AAEC/w==', 'base64 without whitespace');
  assert.equal([...artifactBytes('ext', { path: 'c.bin', content: 'AAEC/w==', binary: true })], [0, 1, 2, 255]);
});

Validate('should refuse unsafe paths, collisions and bad base64 :: hostile', () => {
  for (const path of ['', '/abs', 'C:/x', 'a/../b', 'a//b', 'a\\b', 'con.txt', 'a/./b', 'a?b']) {
    assert.is(codeOf(() => validateArtifacts('ext', [text(path)])), LocalErrorCode.Artifact, path);
  }
  assert.is(codeOf(() => validateArtifacts('ext', [text('A.avsc'), text('a.avsc')])), LocalErrorCode.Artifact);
  assert.is(codeOf(() => validateArtifacts('ext', [text('a'), text('a/b')])), LocalErrorCode.Artifact);
  assert.is(codeOf(() => validateArtifacts('ext', [text('a/b'), text('a')])), LocalErrorCode.Artifact);
  assert.is(codeOf(() => validateArtifacts('ext', [{ path: 'x.bin', content: 'not base64!', binary: true }])), LocalErrorCode.Artifact);
  assert.is(codeOf(() => validateArtifacts('ext', [text('a'), text('b')], { maxArtifacts: 1 })), LocalErrorCode.Limit);
});

Validate('should refuse paths that name one file on macOS or Windows :: hostile', () => {
  assert.is(codeOf(() => validateArtifacts('ext', [text('caf\u00e9.avsc'), text('cafe\u0301.avsc')])), LocalErrorCode.Artifact, 'NFC and NFD');
  assert.is(codeOf(() => validateArtifacts('ext', [text('Stra\u00dfe.avsc'), text('STRASSE.avsc')])), LocalErrorCode.Artifact, 'case folding');
  assert.is(codeOf(() => validateArtifacts('ext', [text('Types/a.avsc'), text('types/b.avsc')])), LocalErrorCode.Artifact, 'directories');
  for (const path of ['a.', 'a ', 'd./x', 'CON .txt', 'conin$.txt', 'COM\u00b9.log', 'x/aux.tar.gz', `${'é'.repeat(128)}`, 'x'.repeat(256)]) {
    assert.is(codeOf(() => validateArtifacts('ext', [text(path)])), LocalErrorCode.Artifact, path);
  }
  assert.is(validateArtifacts('ext', [text('x'.repeat(255)), text(`${'é'.repeat(127)}x`), text('con0.txt'), text('a.b'), text('aux_x')]).files.length, 5);
});

Validate('should check artifacts one at a time as they arrive, with the count limit', () => {
  const validator = createArtifactValidator('ext', { maxArtifacts: 2 });
  assert.is(validator.check(text('a')).path, 'a');
  assert.is(codeOf(() => validator.check(text('A'))), LocalErrorCode.Artifact);
  assert.is(codeOf(() => validator.check(text('b/../c'))), LocalErrorCode.Artifact);
  assert.equal(validator.check({ path: 'b', content: 'AA\nAA', binary: true }), { path: 'b', content: 'AAAA', binary: true });
  assert.is(validator.count, 2);
  assert.is(codeOf(() => validator.check(text('c'))), LocalErrorCode.Limit);
});

Validate('should measure sizes exactly only near the limit :: multibyte', () => {
  // 400 "é" are 800 UTF-8 bytes: under 1000 although 3 × 400 is not.
  assert.is(validateArtifacts('ext', [text('a', 'é'.repeat(400))], { maxArtifactBytes: 1000 }).files.length, 1);
  assert.is(codeOf(() => validateArtifacts('ext', [text('a', 'é'.repeat(501))], { maxArtifactBytes: 1000 })), LocalErrorCode.Artifact);
  assert.is(validateArtifacts('ext', [text('a', '😀'.repeat(250))], { maxArtifactBytes: 1000 }).files.length, 1);
  assert.is(codeOf(() => validateArtifacts('ext', [{ path: 'x', content: 'AAAA'.repeat(300), binary: true }], { maxArtifactBytes: 899 })), LocalErrorCode.Artifact);
  assert.is(validateArtifacts('ext', [{ path: 'x', content: 'AAAA'.repeat(300), binary: true }], { maxArtifactBytes: 900 }).files.length, 1);
});

Validate('should refuse names NTFS may take for another file or stream, whatever OS runs mep :: hostile', () => {
  // 8.3 short names (PROGRA~1 is "Program Files"), trailing dots and spaces, devices, alternate data streams.
  for (const path of ['PROGRA~1', 'progra~1/x.txt', 'MYDOC~12.TXT', 'a~1.b', 'x/LONGNA~9.avs', 'a.txt.', 'a.txt ', 'nul', 'lpt1.log', 'a:b', 'a.txt:stream', 'a.txt::$DATA']) {
    assert.is(codeOf(() => validateArtifacts('ext', [text(path)])), LocalErrorCode.Artifact, path);
  }
  assert.is(validateArtifacts('ext', [text('a~b.txt'), text('x~1y.txt'), text('verylongname~1.txt'), text('~1'), text('a~1.json5')]).files.length, 5, 'not the shape of a short name');
  // What the red team sends: NUL, backslashes, drive letters, UNC and device paths.
  for (const path of ['a\0b', 'a\\b', 'C:x', 'c:\\x', '\\\\server\\share\\x', '//server/share/x', '\\\\?\\C:\\x', 'a/\u202eexe.txt']) {
    assert.is(codeOf(() => validateArtifacts('ext', [text(path)])), LocalErrorCode.Artifact, JSON.stringify(path));
  }
});

Validate("should refuse an artifact in a Git repository's or a mep project's own folder, however it is spelled :: hostile", () => {
  // An output that is a repository or a project root: .git/config runs commands (core.fsmonitor),
  // .mep/config.json approves secrets and .mep/extensions.lock pins what runs there.
  for (const path of ['.git/config', 'a/.git/hooks/pre-commit', '.GIT/config', '.g\u200cit/config', '.git\ufeff/config', '.mep/config.json', '.MEP/extensions.lock', 'x/.mep/extensions/evil/extension.json', 'GIT~1/config']) {
    assert.is(codeOf(() => validateArtifacts('ext', [text(path)])), LocalErrorCode.Artifact, JSON.stringify(path));
  }
  assert.is(validateArtifacts('ext', [text('.gitignore'), text('.github/workflows/x.yml'), text('a.git/x'), text('.mepx/y')]).files.length, 4);
});

Validate('should refuse DEL, C1 controls, line separators and lone surrogates in a name: lone ones are all one file (U+FFFD) on disk :: hostile', () => {
  // a\ud800 and a\ud801 are two names to JavaScript and one file once encoded as UTF-8 (both U+FFFD).
  for (const path of ['a\x7f.txt', 'a\x9b31m.txt', 'x/\x85', 'a\u2028b.txt', 'a\u2029', 'a\ud800.txt', 'a\udfff', 'x\udc00y/z.txt']) {
    assert.is(codeOf(() => validateArtifacts('ext', [text(path)])), LocalErrorCode.Artifact, JSON.stringify(path));
  }
  assert.is(codeOf(() => validateArtifacts('ext', [text('a\ud800.txt'), text('a\ud801.txt')])), LocalErrorCode.Artifact);
  assert.is(validateArtifacts('ext', [text('a\ufffd.txt'), text('\ud83d\ude00.txt'), text('caf\u00e9\u00a0x.txt'), text('\u3000a')]).files.length, 4, 'a pair, U+FFFD itself, NBSP and ideographic space are names');
});

// Before: text content was encoded with TextEncoder, which writes a lone surrogate as U+FFFD
// without a word: "x = '\ud800'" and "x = '\udfff'" were written as the same bytes, neither
// the text the extension returned, and mep reported success.
Validate('should refuse text content holding a lone surrogate, which no file can hold, naming the artifact and where :: content', () => {
  for (const content of ["x = '\ud800';", '\udfff', 'ok\n'.repeat(1000) + '\ud83d']) {
    let thrown: unknown;
    try {
      validateArtifacts('ext', [text('ok.txt', 'fine \ud83d\ude00'), text('gen/a.ts', content)]);
    } catch (error) {
      thrown = error;
    }
    const error = thrown as { code?: string; message?: string; data?: { path?: string; offset?: number } };
    assert.is(error?.code, LocalErrorCode.Artifact, JSON.stringify(content.slice(-8)));
    assert.match(error.message ?? '', /gen\/a\.ts/);
    assert.match(error.message ?? '', /lone surrogate/);
    assert.is(error.data?.offset, content.search(/[\ud800-\udfff]/));
  }
  assert.is(validateArtifacts('ext', [text('a.txt', '\ud83d\ude00 \ufffd'), { path: 'b.bin', content: '7f8=', binary: true }]).files.length, 2, 'pairs, U+FFFD and binary content pass');
});

Validate.run();

/**
 * The README's security model names, for every guarantee, the test that attacks it
 * (`path/to/x.test.ts` :: "test name", with `…` where the name is shortened). This test holds those
 * names to the code: every file named exists, and every quoted name is (a part of) a test of it, so
 * a renamed or deleted test cannot leave a row of the ledger pointing at nothing.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));

/** A reference in the README: the file as written, and the quoted names after it. */
export interface LedgerReference { file: string; names: string[] }

/** Every `x.test.ts` reference in `text`, with the names quoted after its `::`. */
export function ledgerReferences(text: string): LedgerReference[] {
  const references: LedgerReference[] = [];
  const reference = /`([^`\s]+\.test\.ts)`((?:\s*::\s*(?:"(?:\\"|[^"])*"(?:\s*,\s*|\s*;\s*|\s+and\s+)?)+)?)/g;
  for (const match of text.matchAll(reference)) {
    const names = [...(match[2] ?? '').matchAll(/"((?:\\"|[^"])*)"/g)].map((quoted) => quoted[1]!.replace(/\\"/g, '"'));
    references.push({ file: match[1]!, names });
  }
  return references;
}

/** The first arguments of the calls that declare tests (`const S = suite(…)`, then `S('name', …)`), escapes undone. */
export function testNames(source: string): string[] {
  const declared = [...source.matchAll(/\b(?:const|let)\s+([A-Za-z_$][\w$]*)\s*=\s*suite\(/g)].map((m) => m[1]!);
  if (declared.length === 0) return [];
  // A suite skipped where what it needs is absent: `const test = hasChromium ? Browser : Browser.skip`.
  const aliases = [...source.matchAll(/\b(?:const|let)\s+([A-Za-z_$][\w$]*)\s*=\s*[^;\n?]*\?\s*([A-Za-z_$][\w$]*)\s*:\s*\2\.skip\b/g)].filter((m) => declared.includes(m[2]!)).map((m) => m[1]!);
  const suites = [...declared, ...aliases].map((name) => name.replace(/\$/g, '\\$'));
  const call = new RegExp(`\\b(?:${suites.join('|')})(?:\\.only|\\.skip)?\\(\\s*(?:'((?:\\\\.|[^'\\\\])*)'|\`((?:\\\\.|[^\`\\\\])*)\`|"((?:\\\\.|[^"\\\\])*)")`, 'g');
  return [...source.matchAll(call)].map((m) => (m[1] ?? m[2] ?? m[3]!).replace(/\\(.)/g, '$1'));
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Whether `fragment` can be a part of a name declared as `name`, where a template's `${…}` stands
 * for any text: literally, or spanning its pieces from a suffix of one to a prefix of a later one.
 * A fragment must start in literal text, so "should stop ${what} past the budget" does not
 * contain "should start X past the budget" by taking it all as the template's value.
 */
export function nameContains(name: string, fragment: string): boolean {
  const pieces = name.split(/\$\{[^}]*\}/);
  if (pieces.some((piece) => piece.includes(fragment))) return true;
  for (let first = 0; first < pieces.length; first++) {
    for (let last = first + 1; last < pieces.length; last++) {
      const start = pieces[first]!, end = pieces[last]!;
      // It starts in the literal text (unless the name starts with a `${…}`), and may end in a value.
      const suffixes = Array.from({ length: Math.max(1, start.length) }, (_, i) => escape(start.slice(i))).join('|');
      const prefixes = Array.from({ length: end.length + 1 }, (_, i) => escape(end.slice(0, i))).join('|');
      const middle = pieces.slice(first + 1, last).map(escape).join('.+?');
      const pattern = `^(?:${suffixes}).+?${middle ? `${middle}.+?` : ''}(?:${prefixes})$`;
      if (new RegExp(pattern, 's').test(fragment)) return true;
    }
  }
  return false;
}

/** What is wrong with one reference, given the repository's test files: nothing when empty. */
export function checkReference(reference: LedgerReference, files: string[], read: (file: string) => string): string[] {
  const matches = files.filter((file) => file === reference.file || file.endsWith(`/${reference.file}`));
  if (matches.length === 0) return [`${reference.file}: no such test file`];
  const problems: string[] = [];
  const names = matches.flatMap((file) => testNames(read(file)));
  for (const quoted of reference.names) {
    const fragments = quoted.split('…').map((part) => part.trim()).filter(Boolean);
    if (!names.some((name) => fragments.every((fragment) => nameContains(name, fragment)))) {
      problems.push(`${reference.file} :: "${quoted}": no test of that name`);
    }
  }
  return problems;
}

/** The rows of `text`'s tables that name a bound (a `test` column, or the resource table) but no test file. */
export function rowsWithoutTest(text: string): string[] {
  const missing: string[] = [];
  let header: string | undefined;
  for (const line of text.split('\n')) {
    if (!line.startsWith('|')) { header = undefined; continue; }
    if (header === undefined) { header = line; continue; }
    if (/^\|[\s|:-]+$/.test(line)) continue;
    const namesBounds = /\|\s*test\s*\|/.test(header) || /^\|\s*resource\s*\|/.test(header);
    if (namesBounds && !/\.test\.ts`/.test(line)) missing.push(line.slice(0, 120));
  }
  return missing;
}

const Ledger = suite('README :: the security model names tests that exist');

Ledger('should match a name through a template, and not a name that is not there', () => {
  const declared = testNames("const X = suite('x'); const Y = suite('y');\nX(`should stop ${what} past the budget :: ${how}`, f);\nY('it\\'s plain', g);");
  assert.equal(declared, ['should stop ${what} past the budget :: ${how}', "it's plain"]);
  assert.ok(nameContains(declared[0]!, 'should stop comments (keep-alives) past the budget'));
  assert.ok(nameContains(declared[0]!, 'stop comments'));
  assert.ok(nameContains(declared[0]!, 'past the budget :: auto'));
  assert.ok(nameContains(declared[1]!, "it's"));
  assert.not.ok(nameContains(declared[0]!, 'should start comments past the budget'));
  assert.not.ok(nameContains(declared[1]!, 'plain text'));
  const refs = ledgerReferences('(`a/b.test.ts` :: "one \\"q\\" …", "two"; `c.test.ts`)');
  assert.equal(refs, [{ file: 'a/b.test.ts', names: ['one "q" …', 'two'] }, { file: 'c.test.ts', names: [] }]);
  const files = ['x/a/b.test.ts'];
  const read = () => "const S = suite('s'); S('one \"q\" here', f); S(`two ${n}`, g);";
  assert.equal(testNames("const S = suite('s'); const t = ok ? S : S.skip; t('aliased', f); const u = ok ? V : V.skip; u('not a suite', g);"), ['aliased']);
  assert.equal(checkReference(refs[0]!, files, read), []);
  assert.equal(checkReference({ file: 'a/b.test.ts', names: ['three'] }, files, read), ['a/b.test.ts :: "three": no test of that name']);
  assert.equal(checkReference(refs[1]!, files, read), ['c.test.ts: no such test file']);
  const table = '| party | bound | test |\n|---|---|---|\n| a | b | `x.test.ts` |\n| c | d | none |\n\n| party | controls |\n|---|---|\n| e | f |';
  assert.equal(rowsWithoutTest(table), ['| c | d | none |']);
});

Ledger('should find every test file and test name the README security model names', () => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const start = readme.indexOf('\n## Security model');
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end < 0 ? undefined : end);
  const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.test.ts'], { cwd: root, encoding: 'utf8' }).trim().split('\n');
  const references = ledgerReferences(section);
  assert.ok(references.length > 100, `${references.length} references found: the README's format changed?`);
  const problems = references.flatMap((reference) => checkReference(reference, files, (file) => readFileSync(join(root, file), 'utf8')));
  assert.equal(problems, []);
  assert.equal(rowsWithoutTest(section), [], 'every row of a bound names the test that attacks it');
});

Ledger.run();

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Diagnostic } from '../protocol/index.ts';
import { renderDiagnostics } from './render-diagnostics.ts';

const at = (path: string, line = 0): Diagnostic => ({
  severity: 'warning',
  code: 'x.look',
  message: 'see here',
  location: { uri: pathToFileURL(path).href, range: { start: { line, character: 0 }, end: { line, character: 3 } } },
});

const Render = suite('renderDiagnostics :: which files it shows a line of');

let dir: string;
let cwd: string;

Render.before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mep-render-'));
  cwd = join(dir, 'project');
  await mkdir(join(cwd, 'src'), { recursive: true });
  await mkdir(join(cwd, '.git'));
  await mkdir(join(dir, 'home', '.ssh'), { recursive: true });
  await writeFile(join(cwd, 'src', 'A.elm'), 'module A exposing (..)\nvisible = 1\n');
  await writeFile(join(cwd, '.env'), 'DOTENV_SECRET=in-a-dotfile\n');
  await writeFile(join(cwd, '.git', 'config'), 'url = https://user:GIT_SECRET@example.com/x\n');
  await writeFile(join(dir, 'home', '.ssh', 'id_ed25519'), 'PRIVATE_KEY_LINE\n');
  await writeFile(join(dir, 'home', 'notes.txt'), 'OUTSIDE_SECRET\n');
  await symlink(join(dir, 'home', 'notes.txt'), join(cwd, 'src', 'Link.elm'));
});

Render.after(async () => {
  await rm(dir, { recursive: true, force: true });
});

// Before: a location a sandboxed extension put in a diagnostic was read from disk, wherever it
// pointed, and a line of it printed on mep's stderr: a wasm guest with no file access had mep print
// a line of the user's key, a .env or /proc/self/environ (every variable of mep's environment,
// tokens included) into the terminal or a CI log.
Render("should show lines of files below the working directory only, never a dotfile's, a file outside it or through a link, nor /proc's :: outside", () => {
  // /proc/self/environ is the environment mep started with (NUL-separated: one "line").
  const environ = existsSync('/proc/self/environ') ? readFileSync('/proc/self/environ', 'latin1').split('\0').find((entry) => entry.length >= 8) : undefined;
  {
    const diagnostics = [
      at(join(cwd, 'src', 'A.elm'), 1),
      at(join(cwd, '.env')),
      at(join(cwd, '.git', 'config')),
      at(join(dir, 'home', '.ssh', 'id_ed25519')),
      at(join(dir, 'home', 'notes.txt')),
      at(join(cwd, 'src', 'Link.elm')),
      at('/proc/self/environ'),
    ];
    const text = renderDiagnostics(diagnostics, { cwd }).join('\n');
    assert.match(text, /2 \| visible = 1/, 'a source below the working directory is shown');
    for (const secret of ['in-a-dotfile', 'GIT_SECRET', 'PRIVATE_KEY_LINE', 'OUTSIDE_SECRET', ...(environ ? [environ] : [])]) assert.ok(!text.includes(secret), `a line holding ${secret.slice(0, 14)}… was printed`);
    for (const named of ['.env:1:1', '.git/config:1:1', 'id_ed25519:1:1', 'notes.txt:1:1', 'Link.elm:1:1', '/proc/self/environ:1:1']) assert.ok(text.includes(named), `the location ${named} is still named`);
  }
});

Render('should show the text that was compiled by its URI, wherever it is', () => {
  const uri = pathToFileURL(join(dir, 'home', 'notes.txt')).href;
  const text = renderDiagnostics([at(join(dir, 'home', 'notes.txt'))], { cwd, sources: new Map([[uri, 'the compiled text']]) }).join('\n');
  assert.match(text, /1 \| the compiled text/);
});

Render.run();

/**
 * morphir-elm's Elm compiler as one plain script for any QuickJS or V8 (bench/quickjs-elm runs it
 * sandboxed, native and in V8; bench/callgrind counts its instructions natively): the compiler
 * (2 MB of JS, `node_modules/morphir-elm/cli/Morphir.Elm.CLI.js`), the generated project of
 * fixtures/ir/large-elm-model.ts, and a driver that runs the Elm runtime's timers itself.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { elmProject } from '../fixtures/ir/large-elm-model.ts';
import { ROOT } from './lib.ts';

/**
 * The program: the compiler, its input and a driver that runs its timers in order of due time,
 * then creation. `report` is how each engine hands back the result (a digest of the IR).
 */
export function elmCompileProgram(modules: number, typesPerModule: number): string {
  const compiler = readFileSync(join(ROOT, 'node_modules', 'morphir-elm', 'cli', 'Morphir.Elm.CLI.js'), 'utf8');
  const files = elmProject(modules, typesPerModule);
  const morphirJson = JSON.parse(files.get('morphir.json') as string);
  const sources = [...files].filter(([path]) => path.endsWith('.elm')).map(([path, content]) => ({ path, content }));
  return `var __elmCompile = (function () {
  var timers = [], seq = 0, warnings = 0;
  var console = { log: function () {}, warn: function () { warnings++; }, error: function () { warnings++; } };
  function setTimeout(f, ms) { timers.push({ f: f, at: ms || 0, seq: seq++ }); return seq; }
  function clearTimeout(id) { timers = timers.filter(function (t) { return t.seq !== id - 1; }); }
  var scope = {};
  (function () { ${compiler}\n }).call(scope);
  return function () {
    var worker = scope.Elm.Morphir.Elm.CLI.init();
    var result = null, failure = null;
    worker.ports.jsonDecodeError.subscribe(function (e) { failure = 'decode: ' + JSON.stringify(e); });
    worker.ports.packageDefinitionFromSourceResult.subscribe(function (r) { if (r[0]) failure = JSON.stringify(r[0]); else result = r[1]; });
    worker.ports.packageDefinitionFromSource.send([{ typesOnly: false }, ${JSON.stringify(morphirJson)}, ${JSON.stringify(sources)}]);
    while (result === null && failure === null && timers.length > 0) {
      timers.sort(function (a, b) { return a.at - b.at || a.seq - b.seq; });
      timers.shift().f();
    }
    if (failure !== null) throw new Error('the Elm compiler failed: ' + failure.slice(0, 500));
    if (result === null) throw new Error('the Elm compiler never answered');
    var text = JSON.stringify(result), h = 0;
    for (var i = 0; i < text.length; i++) h = (h * 31 + text.charCodeAt(i)) | 0;
    return text.length + ':' + h;
  };
})();
`;
}

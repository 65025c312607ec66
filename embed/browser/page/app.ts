/**
 * The demo page: pick Elm sources and compile them to Morphir IR with Morphir's Elm frontend, or
 * paste or pick a Morphir IR; choose backend options, and generate with a wasm extension (the
 * built-in Avro backend, or a picked .wasm). Every extension runs in a Web Worker: the page stays
 * responsive while a guest runs; Stop (or the time limit) terminates the worker.
 */
import { isMepError, openWasmSession, shownText, type Diagnostic, type GenerateResult, type Session } from '../src/index.ts';

const $ = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;
const irText = $<HTMLTextAreaElement>('ir');
const statusLine = $<HTMLSpanElement>('status');
const generateButton = $<HTMLButtonElement>('generate');
const stopButton = $<HTMLButtonElement>('stop');
const artifactsView = $<HTMLDivElement>('artifacts');
const diagnosticsView = $<HTMLUListElement>('diagnostics');
const ticks = $<HTMLOutputElement>('ticks');

const builtIn = new Map<string, Promise<WebAssembly.Module>>();
let stopRunning: (() => Promise<void>) | undefined;

// A heartbeat on the page's own thread: it keeps counting only while that thread is free.
let tick = 0;
setInterval(() => (ticks.value = String(++tick)), 50);

function setStatus(state: 'idle' | 'running' | 'done' | 'failed', text: string): void {
  statusLine.dataset.state = state;
  statusLine.textContent = shownText(text);
}

/** A built-in extension served beside the page (`avro.wasm`, `elm-frontend.wasm`), compiled once while it downloads. */
function builtInModule(file: string): Promise<WebAssembly.Module> {
  let module = builtIn.get(file);
  if (!module) {
    module = WebAssembly.compileStreaming(fetch(new URL(`./${file}`, import.meta.url)));
    builtIn.set(file, module);
    // A failed download is forgotten so that the next click fetches again; the caller still
    // gets the rejection from `module` itself.
    module.catch(() => builtIn.delete(file));
  }
  return module;
}

async function chosenExtension(): Promise<{ name: string; module: Uint8Array | WebAssembly.Module }> {
  const file = $<HTMLInputElement>('extension-file').files?.[0];
  if (file) return { name: file.name, module: new Uint8Array(await file.arrayBuffer()) };
  return { name: 'avro.wasm', module: await builtInModule('avro.wasm') };
}

function options(): Record<string, unknown> {
  return {
    representation: $<HTMLSelectElement>('representation').value,
    projection: $<HTMLSelectElement>('projection').value,
    unsupported: $<HTMLSelectElement>('unsupported').value,
    logical_types: $<HTMLInputElement>('logical-types').checked,
  };
}

/** Diagnostics as a compiler prints them: `File.elm:12:5: error elm.parse: …` (positions one-based on screen). */
function renderDiagnostics(diagnostics: readonly Diagnostic[]): void {
  diagnosticsView.replaceChildren(
    ...diagnostics.map((d) => {
      const item = document.createElement('li');
      item.className = `diagnostic severity-${d.severity}`;
      const at = d.location ? `${d.location.uri.slice(d.location.uri.lastIndexOf('/') + 1)}:${d.location.range.start.line + 1}:${d.location.range.start.character + 1}: ` : '';
      item.textContent = shownText(`${at}${d.severity} ${d.code ?? ''}: ${d.message}`);
      return item;
    }),
  );
}

function render(result: GenerateResult): void {
  renderDiagnostics(result.diagnostics);
  artifactsView.replaceChildren(
    ...result.artifacts.map((artifact) => {
      const section = document.createElement('section');
      section.className = 'artifact';
      const title = document.createElement('h3');
      title.textContent = artifact.path;
      const body = document.createElement('pre');
      body.textContent = artifact.binary ? `(${artifact.content.length} base64 characters)` : artifact.content;
      section.append(title, body);
      return section;
    }),
  );
}

async function generate(): Promise<void> {
  let ir: unknown;
  try {
    ir = JSON.parse(irText.value);
  } catch (error) {
    setStatus('failed', `The IR is not valid JSON (${(error as Error).message}): paste or pick a morphir-ir.json.`);
    return;
  }
  generateButton.disabled = true;
  stopButton.disabled = false;
  artifactsView.replaceChildren();
  diagnosticsView.replaceChildren();
  const started = performance.now();
  let session: Session | undefined;
  try {
    setStatus('running', 'Starting the extension…');
    const extension = await chosenExtension();
    const callTimeoutMs = Number($<HTMLInputElement>('time-limit').value) || 30_000;
    const opened = await openWasmSession({ name: extension.name, module: extension.module, limits: { callTimeoutMs }, session: { requestTimeoutMs: callTimeoutMs + 1_000 } });
    session = opened.session;
    stopRunning = opened.terminate;
    const target = opened.initialize.capabilities.backend?.targets[0];
    if (target === undefined) throw new Error(`${opened.initialize.extension.id} is not a backend: it advertises no target.`);
    setStatus('running', `Generating ${target} with ${opened.initialize.extension.id}…`);
    const result = await session.generate({ ir: ir as Record<string, unknown>, target, options: options() });
    render(result);
    const took = (performance.now() - started).toFixed(0);
    setStatus(result.success ? 'done' : 'failed', `${result.success ? 'Generated' : 'Failed with'} ${result.artifacts.length} artifact(s), ${result.diagnostics.length} diagnostic(s) in ${took} ms.`);
  } catch (error) {
    const code = isMepError(error) ? ` [${String(error.code)}]` : '';
    setStatus('failed', `Stopped${code}: ${(error as Error).message}`);
  } finally {
    stopRunning = undefined;
    generateButton.disabled = false;
    stopButton.disabled = true;
    await session?.close();
  }
}

/** Compiles the picked Elm files to Morphir IR with the built-in Elm frontend, into the IR box. */
async function compileElm(): Promise<void> {
  const files = Array.from($<HTMLInputElement>('elm-files').files ?? []);
  if (files.length === 0) {
    setStatus('failed', 'Pick the .elm files of one package first.');
    return;
  }
  // Running from the click on: the files are read first, and the last run's state must not show meanwhile.
  setStatus('running', `Reading ${files.length} Elm file(s)…`);
  const exposed = $<HTMLInputElement>('elm-exposed').value.split(',').map((m) => m.trim()).filter(Boolean);
  const pkg = { name: $<HTMLInputElement>('elm-package').value.trim() || 'local/example', ...(exposed.length ? { exposedModules: exposed } : {}) };
  const documents = await Promise.all(files.map(async (f) => ({ uri: `file:///src/${encodeURIComponent(f.name)}`, languageId: 'elm', version: 1, text: await f.text() })));
  artifactsView.replaceChildren();
  diagnosticsView.replaceChildren();
  const started = performance.now();
  let session: Session | undefined;
  try {
    setStatus('running', `Compiling ${files.length} Elm file(s)…`);
    const callTimeoutMs = Number($<HTMLInputElement>('time-limit').value) || 30_000;
    const opened = await openWasmSession({ name: 'elm-frontend.wasm', module: await builtInModule('elm-frontend.wasm'), limits: { callTimeoutMs }, session: { requestTimeoutMs: callTimeoutMs + 1_000 } });
    session = opened.session;
    stopRunning = opened.terminate;
    const result = await session.compile({ languageId: 'elm', sources: { root: 'file:///src/', documents }, package: pkg });
    renderDiagnostics(result.diagnostics);
    if (result.success) irText.value = JSON.stringify(result.ir, null, 2);
    const took = (performance.now() - started).toFixed(0);
    setStatus(result.success ? 'done' : 'failed', result.success ? `Compiled ${result.modules.length} module(s) to Morphir IR ${result.irVersion} in ${took} ms.` : `Compilation failed with ${result.diagnostics.length} diagnostic(s).`);
  } catch (error) {
    const code = isMepError(error) ? ` [${String(error.code)}]` : '';
    setStatus('failed', `Stopped${code}: ${(error as Error).message}`);
  } finally {
    stopRunning = undefined;
    await session?.close();
  }
}

async function pickIr(): Promise<void> {
  const file = $<HTMLInputElement>('ir-file').files?.[0];
  if (file) irText.value = await file.text();
}

generateButton.addEventListener('click', () => void generate());
$<HTMLButtonElement>('compile').addEventListener('click', () => void compileElm());
stopButton.addEventListener('click', () => void stopRunning?.());
$<HTMLInputElement>('ir-file').addEventListener('change', () => void pickIr());
setStatus('idle', crossOriginIsolated ? 'Ready.' : 'Not cross-origin isolated: worker isolation is unavailable (serve with COOP/COEP headers).');

/**
 * The demo page: paste or pick a Morphir IR, choose backend options, and generate with a wasm
 * extension (the built-in Avro backend, or a picked .wasm) running in a Web Worker. The page
 * stays responsive while the guest runs; Stop (or the time limit) terminates the worker.
 */
import { isMepError, openWasmSession, type GenerateResult, type Session } from '../src/index.ts';

const $ = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;
const irText = $<HTMLTextAreaElement>('ir');
const statusLine = $<HTMLSpanElement>('status');
const generateButton = $<HTMLButtonElement>('generate');
const stopButton = $<HTMLButtonElement>('stop');
const artifactsView = $<HTMLDivElement>('artifacts');
const diagnosticsView = $<HTMLUListElement>('diagnostics');
const ticks = $<HTMLOutputElement>('ticks');

let builtIn: Promise<WebAssembly.Module> | undefined;
let stopRunning: (() => Promise<void>) | undefined;

// A heartbeat on the page's own thread: it keeps counting only while that thread is free.
let tick = 0;
setInterval(() => (ticks.value = String(++tick)), 50);

function setStatus(state: 'idle' | 'running' | 'done' | 'failed', text: string): void {
  statusLine.dataset.state = state;
  statusLine.textContent = text;
}

/** The built-in Avro extension, compiled once while it downloads. */
function builtInModule(): Promise<WebAssembly.Module> {
  builtIn ??= WebAssembly.compileStreaming(fetch(new URL('./avro.wasm', import.meta.url))).catch((error: unknown) => {
    builtIn = undefined;
    throw error;
  });
  return builtIn;
}

async function chosenExtension(): Promise<{ name: string; module: Uint8Array | WebAssembly.Module }> {
  const file = $<HTMLInputElement>('extension-file').files?.[0];
  if (file) return { name: file.name, module: new Uint8Array(await file.arrayBuffer()) };
  return { name: 'avro.wasm', module: await builtInModule() };
}

function options(): Record<string, unknown> {
  return {
    representation: $<HTMLSelectElement>('representation').value,
    projection: $<HTMLSelectElement>('projection').value,
    unsupported: $<HTMLSelectElement>('unsupported').value,
    logical_types: $<HTMLInputElement>('logical-types').checked,
  };
}

function render(result: GenerateResult): void {
  diagnosticsView.replaceChildren(
    ...result.diagnostics.map((d) => {
      const item = document.createElement('li');
      item.className = `diagnostic severity-${d.severity}`;
      item.textContent = `${d.severity} ${d.code ?? ''}: ${d.message}`;
      return item;
    }),
  );
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

async function pickIr(): Promise<void> {
  const file = $<HTMLInputElement>('ir-file').files?.[0];
  if (file) irText.value = await file.text();
}

generateButton.addEventListener('click', () => void generate());
stopButton.addEventListener('click', () => void stopRunning?.());
$<HTMLInputElement>('ir-file').addEventListener('change', () => void pickIr());
setStatus('idle', crossOriginIsolated ? 'Ready.' : 'Not cross-origin isolated: worker isolation is unavailable (serve with COOP/COEP headers).');

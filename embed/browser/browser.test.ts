import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { builtAvro, builtExample } from '../../examples/testing/built.ts';
import { loadEditedWatFixture, loadPortableWatFixture, loadWatFixture } from '../../fixtures/wasm/compile.ts';
import { runHostileInPage } from './testing/hostile-in-page.ts';
import { builtHostileGuest, hostileIr } from '../testing/hostile-guest.ts';
import { HOST_BOUNDS } from '../../host/src/protocol/limits.ts';
import { serveStatic, type StaticServer } from '../testing/static-server.ts';
import { checkNoNodeImports } from '../bundle-check.ts';
import { buildBrowserEmbed } from './build.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const CHROMIUM = '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
const customerIr = readFileSync(join(root, 'fixtures/ir/customer/morphir-ir.json'), 'utf8');

const Build = suite('embed/browser :: build');

Build('should refuse a bundle that imports a node: module, naming the importer', () => {
  const metafile = { inputs: { 'host/src/x.ts': { bytes: 1, imports: [{ path: 'node:fs', kind: 'import-statement' as const, external: true }] } }, outputs: {} };
  try {
    checkNoNodeImports(metafile);
    assert.unreachable('a node: import must fail the build');
  } catch (error) {
    assert.is((error as { code: unknown }).code, 'ERR_BUILD');
    assert.equal((error as { data: { offenders: string[] } }).data.offenders, ['host/src/x.ts imports node:fs']);
  }
});

Build.run();

const Browser = suite('embed/browser :: in Chromium');
let context: BrowserContext | undefined;
let server: StaticServer | undefined;
let profile: string | undefined;
let page: Page;
const pageErrors: string[] = [];

Browser.before(async () => {
  if (!hasChromium) return;
  const outDir = await mkdtemp(join(tmpdir(), 'mep-embed-browser-'));
  await buildBrowserEmbed({ outDir, avroWasm: await builtAvro('wasm'), elmWasm: await builtExample('elm-frontend', 'wasm') });
  server = await serveStatic(outDir);
  profile = await mkdtemp(join(tmpdir(), 'mep-chromium-profile-'));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  page = context.pages()[0] ?? (await context.newPage());
  page.on('pageerror', (error) => pageErrors.push(error.message));
  await page.goto(server.url);
  await page.waitForSelector('#status[data-state="idle"]');
});

Browser.after(async () => {
  await context?.close();
  await server?.close();
  if (profile) await rm(profile, { recursive: true, force: true });
});

const status = () => page.locator('#status').textContent();

if (!hasChromium) console.log(`embed/browser: ${CHROMIUM} is absent, so the Chromium tests are skipped (install Debian's chromium: scripts/setup.sh does).`);
const test = hasChromium ? Browser : Browser.skip;

test('should generate Avro from a pasted Morphir IR and show the .avsc artifact', async () => {
  assert.is(await page.evaluate(() => crossOriginIsolated), true);
  await page.fill('#ir', customerIr);
  await page.click('#generate');
  await page.waitForSelector('#status[data-state="done"]', { timeout: 20_000 });
  const paths = await page.locator('.artifact h3').allTextContents();
  assert.equal(paths, ['acme/customer/customer/Customer.avsc'], (await status()) ?? '');
  const schema = JSON.parse((await page.locator('.artifact pre').first().textContent()) ?? '');
  assert.is(schema.type, 'record');
  assert.is(schema.name, 'Customer');
  assert.equal(await page.locator('.diagnostic').count(), 0);
});

test('should apply the chosen options (IDL representation)', async () => {
  await page.selectOption('#representation', 'idl');
  await page.click('#generate');
  await page.waitForSelector('#status[data-state="done"]', { timeout: 20_000 });
  const paths = await page.locator('.artifact h3').allTextContents();
  assert.ok(paths.length > 0 && paths.every((p) => p.endsWith('.avdl')), paths.join(', '));
  await page.selectOption('#representation', 'json');
});

test('should kill a runaway guest at its deadline while the page stays responsive', async () => {
  await page.fill('#time-limit', '1500');
  await page.setInputFiles('#extension-file', { name: 'loop.wasm', mimeType: 'application/wasm', buffer: Buffer.from(loadWatFixture('loop')) });
  await page.click('#generate');
  await page.waitForSelector('#status[data-state="running"]');
  const ticksAtStart = Number(await page.locator('#ticks').textContent());
  // The page's own timer keeps ticking and the page answers at once while the guest spins.
  await page.waitForFunction((start) => Number(document.querySelector('#ticks')?.textContent) >= start + 10, ticksAtStart, { timeout: 1_400 });
  const asked = performance.now();
  assert.is(await page.evaluate(() => document.querySelector('#status')?.getAttribute('data-state')), 'running');
  assert.ok(performance.now() - asked < 500, 'the page answered while the guest was spinning');
  await page.waitForSelector('#status[data-state="failed"]', { timeout: 10_000 });
  assert.match((await status()) ?? '', /ERR_TIMEOUT|deadline/);

  await page.setInputFiles('#extension-file', []);
  await page.fill('#time-limit', '30000');
  await page.click('#generate');
  await page.waitForSelector('#status[data-state="done"]', { timeout: 20_000 });
  assert.equal(await page.locator('.artifact h3').allTextContents(), ['acme/customer/customer/Customer.avsc']);
  assert.equal(pageErrors, []);
});

const showcaseSrc = join(root, 'fixtures/ir/showcase/src/Acme/Showcase');
const elmFile = (name: string, text?: string) => ({ name, mimeType: 'text/plain', buffer: Buffer.from(text ?? readFileSync(join(showcaseSrc, name), 'utf8')) });
/** JSON with sorted keys, to compare documents. */
const canonical = (v: unknown): string => JSON.stringify(v, (_k, x: unknown) => (x && typeof x === 'object' && !Array.isArray(x) ? Object.fromEntries(Object.entries(x as object).sort(([a], [b]) => (a < b ? -1 : 1))) : x));

test('should compile an Elm project to Morphir IR and generate Avro from it, both client-side', async () => {
  await page.setInputFiles('#elm-files', [elmFile('Common.elm'), elmFile('Internal.elm'), elmFile('Orders.elm')]);
  await page.fill('#elm-package', 'Acme.Showcase');
  await page.fill('#elm-exposed', 'Common, Orders');
  await page.click('#compile');
  await page.waitForSelector('#status[data-state="done"]', { timeout: 60_000 });
  assert.match((await status()) ?? '', /^Compiled 3 module\(s\) to Morphir IR 3/);
  const ir = JSON.parse(await page.inputValue('#ir'));
  assert.is(canonical(ir), canonical(JSON.parse(readFileSync(join(root, 'fixtures/ir/showcase/morphir-ir.json'), 'utf8'))));
  await page.selectOption('#unsupported', 'warn-and-skip');
  await page.click('#generate');
  await page.waitForSelector('#status[data-state="done"]', { timeout: 20_000 });
  const paths = await page.locator('.artifact h3').allTextContents();
  assert.ok(paths.includes('acme/showcase/orders/Order.avsc'), paths.join(', '));
  await page.selectOption('#unsupported', 'error');
});

test('should show an Elm syntax error at its file, line and column, and keep the IR box', async () => {
  await page.fill('#ir', 'unchanged');
  await page.setInputFiles('#elm-files', [elmFile('Broken.elm', 'module Broken exposing (x)\n\nx =\n    1 +\n\ny = 2\n')]);
  await page.fill('#elm-package', '');
  await page.fill('#elm-exposed', '');
  await page.click('#compile');
  await page.waitForSelector('#status[data-state="failed"]', { timeout: 60_000 });
  const shown = await page.locator('.diagnostic').allTextContents();
  assert.is(shown.length, 1);
  assert.match(shown[0], /^Broken\.elm:6:1: error elm\.parse: Syntax error/);
  assert.is(await page.inputValue('#ir'), 'unchanged');
  assert.equal(pageErrors, []);
});

/** A flood fixture with its `$count`/`$size` globals set (the notification and request ones in the portable ABI). */
const edited = (name: string, globals: Record<string, number>): Uint8Array => {
  const edit = (wat: string): string => Object.entries(globals).reduce((w, [g, v]) => w.replace(new RegExp(`\\(global \\$${g} (i32|i64) \\((i32|i64)\\.const \\d+\\)\\)`), (_m, t: string) => `(global $${g} ${t} (${t}.const ${v}))`), wat);
  return name === 'notify-flood' || name === 'request-flood' ? loadPortableWatFixture(name, edit) : loadEditedWatFixture(name, edit);
};

test('should stop each hostile guest in the page at the bound the Node host holds it to, naming the limit', async () => {
  // [fixture, limits, the limit named, most messages that may reach the page thread]
  const cases: [string, Uint8Array, Record<string, number>, string, number][] = [
    ['memory-bomb', loadWatFixture('memory-bomb'), { maxMemoryBytes: 16 * 1024 * 1024 }, 'maxMemoryBytes', 0],
    ['output-bomb (2 GiB answer)', loadWatFixture('output-bomb'), {}, 'maxResponseBytes', 0],
    ['deep-json (100,000 levels)', loadWatFixture('deep-json'), {}, 'maxJsonDepth', 0],
    ['error-flood (100 MB error)', loadWatFixture('error-flood'), {}, 'maxResponseBytes', 0],
    ['log-flood (100,000 empty lines)', edited('log-flood', { count: 100_000, size: 0 }), { maxNotificationBytes: 64 * 1024 }, 'maxNotificationBytes', (64 * 1024) / HOST_BOUNDS.logLineBytes],
    ['notify-flood', edited('notify-flood', { count: 64, size: 16 * 1024 }), { maxNotificationBytes: 256 * 1024 }, 'maxNotificationBytes', 16],
    ['request-flood', edited('request-flood', { count: 64, size: 16 * 1024 }), { maxNotificationBytes: 256 * 1024 }, 'maxNotificationBytes', 16],
    ['var-flood', edited('var-flood', { count: 4096, size: 1024 }), {}, 'maxExtismVarBytes', 0],
  ];
  for (const [name, wasm, limits, limit, most] of cases) {
    const outcome = await runHostileInPage(page, wasm, limits);
    assert.is(outcome.code, 'ERR_LIMIT', `${name}: ${JSON.stringify(outcome).slice(0, 400)}`);
    assert.is(outcome.limit, limit, name);
    assert.ok(outcome.arrived <= most, `${name}: ${outcome.arrived} messages reached the page`);
  }
  assert.equal(pageErrors, []);
});

test('should refuse or stop each guest that breaks the sandbox or the protocol in the page with the typed error the Node host gives', async () => {
  const cases: [string, string | number][] = [
    ['atomic-wait', -32012], ['wasi', -32012], ['memory-min-too-big', 'ERR_LIMIT'], ['start-loop', 'ERR_TIMEOUT'], ['attach-loop', 'ERR_TIMEOUT'],
    ['bad-json', 'ERR_PROTOCOL'], ['two-output-set', 'ERR_PROTOCOL'], ['two-outputs', 'ERR_PROTOCOL'], ['wrong-id', 'ERR_PROTOCOL'],
    ['stack-overflow', 'ERR_EXTENSION_CRASHED'], ['start-overflow', 'ERR_EXTENSION_CRASHED'], ['trap', 'ERR_EXTENSION_CRASHED'], ['data-out-of-bounds', 'ERR_EXTENSION_CRASHED'],
  ];
  for (const [name, code] of cases) {
    const outcome = await runHostileInPage(page, loadWatFixture(name), { callTimeoutMs: 500 });
    assert.is(outcome.code, code, `${name}: ${JSON.stringify(outcome).slice(0, 300)}`);
  }
  assert.equal(pageErrors, []);
});

test('should refuse unsafe artifact paths of a guest with ERR_ARTIFACT and show no artifact', async () => {
  await page.setInputFiles('#extension-file', { name: 'hostile.wasm', mimeType: 'application/wasm', buffer: readFileSync(await builtHostileGuest()) });
  for (const path of ['../x', '/etc/x', 'a\u202Eb.txt', 'a\u0007b']) {
    await page.fill('#ir', hostileIr({ paths: ['ok.txt', path] }));
    await page.click('#generate');
    await page.waitForSelector('#status[data-state="failed"]', { timeout: 20_000 });
    assert.match((await status()) ?? '', /\[ERR_ARTIFACT\].*unsafe artifact/, JSON.stringify(path));
    assert.is(await page.locator('.artifact').count(), 0, JSON.stringify(path));
  }
  await page.fill('#ir', hostileIr({ paths: ['ok.txt'] }));
  await page.click('#generate');
  await page.waitForSelector('#status[data-state="done"]', { timeout: 20_000 });
  assert.equal(await page.locator('.artifact h3').allTextContents(), ['ok.txt']);
  await page.setInputFiles('#extension-file', []);
});

test('should show a guest error of 2 MB cut to one bounded line, and controls and bidi overrides in its text as escapes', async () => {
  await page.setInputFiles('#extension-file', { name: 'hostile.wasm', mimeType: 'application/wasm', buffer: readFileSync(await builtHostileGuest()) });
  await page.fill('#ir', hostileIr({ error: 'evil\u202Etxt.exe\u001b[2J', errorChars: 2_000_000 }));
  await page.click('#generate');
  await page.waitForSelector('#status[data-state="failed"]', { timeout: 30_000 });
  const shown = (await status()) ?? '';
  assert.ok(shown.length <= HOST_BOUNDS.maxLineChars + 200, `a status of ${shown.length} characters`);
  assert.match(shown, /more characters\)/);
  assert.match(shown, /evil\\u202etxt\.exe\\u001b\[2J/);
  await page.fill('#ir', hostileIr({ diagnostic: 'a\u202Eb\u0007' }));
  await page.click('#generate');
  await page.waitForSelector('#status[data-state="done"]', { timeout: 20_000 });
  assert.equal(await page.locator('.diagnostic').allTextContents(), ['warning hostile: a\\u202eb\\u0007']);
  await page.setInputFiles('#extension-file', []);
});

test('should refuse a pasted IR nested 100,000 deep with ERR_LIMIT naming the depth, not a stack overflow', async () => {
  await page.fill('#ir', `{"formatVersion":3,"distribution":["Library",[["acme"]],[],{"modules":[]}],"deep":${'['.repeat(100_000)}${']'.repeat(100_000)}}`);
  await page.click('#generate');
  await page.waitForSelector('#status[data-state="failed"]', { timeout: 20_000 });
  const shown = (await status()) ?? "";
  assert.match(shown, /\[ERR_LIMIT\].*nests more than 2000 levels.*nothing was sent/, shown.slice(0, 400));
  await page.fill('#ir', customerIr);
  assert.equal(pageErrors, []);
});

Browser.run();

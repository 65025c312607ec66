import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { REDACTED } from '../registry/redact.ts';
import { backend, repoRoot, withProject, writePackage } from '../registry/test-support.ts';
import type { TempProject } from '../registry/test-support.ts';
import { captureIo } from './io.ts';
import { main } from './main.ts';

const SECRET = 'tok-5e3c2b1a0f9d';
const ir = join(repoRoot, 'fixtures/ir/customer/morphir-ir.json');

/** Installs a backend allowed to resolve MEP_TEST_SECRET, approved in the project's config. */
async function secretBackend(t: TempProject): Promise<void> {
  const io = captureIo(t.project);
  assert.is(await main(['install', await writePackage(join(t.root, 'crm'), { id: 'acme.crm', capabilities: backend('crm'), secrets: ['env("MEP_TEST_SECRET")'] })], io), 0, io.stderr.join('\n'));
  await mkdir(join(t.project, '.mep'), { recursive: true });
  await writeFile(join(t.project, '.mep/config.json'), JSON.stringify({ secrets: { 'acme.crm': ['env("MEP_TEST_SECRET")'] } }));
  const trust = captureIo(t.project);
  assert.is(await main(['trust'], trust), 0, trust.stderr.join('\n'));
}

async function withSecret(fn: () => Promise<void>, value = SECRET): Promise<void> {
  process.env.MEP_TEST_SECRET = value;
  try {
    await fn();
  } finally {
    delete process.env.MEP_TEST_SECRET;
  }
}

const generate = (output: string, secretPath: string, ...more: string[]) => [
  'generate', '--target', 'crm', '--input', ir, '--output', output, '--option', 'secret=env("MEP_TEST_SECRET")', '--option', `secretPath=${secretPath}`, ...more,
];

const Redacted = suite('cli :: secret values in printed paths');

Redacted('should redact a secret in artifact paths in the human file list and --json written, but write the real name', () =>
  withProject((t) =>
    withSecret(async () => {
      await secretBackend(t);
      for (const json of [false, true]) {
        const output = json ? 'out-json' : 'out-human';
        const io = captureIo(t.project);
        assert.is(await main(generate(output, 'out/{secret}/crm.json', ...(json ? ['--json'] : [])), io), 0, io.stderr.join('\n'));
        const everything = [...io.stdout, ...io.stderr].join('\n');
        assert.not.ok(everything.includes(SECRET), everything);
        if (json) assert.equal(JSON.parse(io.stdout.join('\n')).written, [`out/${REDACTED}/crm.json`]);
        else assert.ok(io.stdout.includes(`  out/${REDACTED}/crm.json`), io.stdout.join('\n'));
        // The extension asked for this name: the file keeps it.
        assert.ok((await stat(join(t.project, output, 'out', SECRET, 'crm.json'))).isFile());
      }
    }),
  ),
);

Redacted('should redact a secret in a refused artifact path, in the error, its --json form and --verbose data', () =>
  withProject((t) =>
    withSecret(async () => {
      await secretBackend(t);
      for (const flags of [[], ['--json'], ['--verbose'], ['--json', '--verbose']]) {
        const io = captureIo(t.project);
        assert.is(await main(generate('out', `../${'{secret}'}.json`, ...flags), io), 3, flags.join(' '));
        const everything = [...io.stdout, ...io.stderr].join('\n');
        assert.ok(everything.includes(REDACTED), everything);
        assert.not.ok(everything.includes(SECRET), everything);
        if (flags.includes('--json')) assert.is(JSON.parse(io.stdout.join('\n')).error.code, 'ERR_ARTIFACT');
      }
      assert.not.ok(await stat(join(t.project, 'out')).catch(() => undefined));
    }),
  ),
);

Redacted('should keep the secret out of the transcript of a run that put it in a path', () =>
  withProject((t) =>
    withSecret(async () => {
      await secretBackend(t);
      const transcript = join(t.project, 'run.jsonl');
      assert.is(await main(generate('out', 'out/{secret}/crm.json', '--transcript', transcript), captureIo(t.project)), 0);
      const text = await readFile(transcript, 'utf8');
      assert.ok(text.includes(`out/${REDACTED}/crm.json`));
      assert.not.ok(text.includes(SECRET));
    }),
  ),
);

Redacted.run();

const Lines = suite('cli :: a multi-line secret in every stream');

const PEM = [
  '-----BEGIN PRIVATE KEY-----',
  'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj',
  'MzEfYyjiWA4R4/M2bS1GB4t7NXp98C3SC6dVMvDuictGeurT8jNbvJZHtCSuYEvu',
  'NMoSfm76oqFvAp8Gy0iz5sxjZmSnXyCdPEovGhLa0VzMaQ8s+CLOyS56YyCFGeJZ',
  '-----END PRIVATE KEY-----',
].join('\n');

/** Any 16 characters of the key in a row, on one line of `text`. */
function leaked(text: string): string | undefined {
  const flat = PEM.replace(/\n/g, '');
  for (let i = 0; i + 16 <= flat.length; i++) if (text.includes(flat.slice(i, i + 16))) return flat.slice(i, i + 16);
  return undefined;
}

Lines('should redact a PEM key the extension logs line by line, wrapped, in --json, --verbose and the transcript :: multi-line', () =>
  withProject((t) =>
    withSecret(async () => {
      await secretBackend(t);
      for (const flags of [[], ['--verbose'], ['--json', '--verbose']]) {
        const io = captureIo(t.project);
        const transcript = join(t.project, 'run.jsonl');
        assert.is(await main([...generate(`out${flags.join('')}`, 'out/crm.json', '--option', 'wrapSecret=20', '--transcript', transcript), ...flags], io), 0, io.stderr.join('\n'));
        const everything = [...io.stdout, ...io.stderr, await readFile(transcript, 'utf8')].join('\n');
        const leak = leaked(everything);
        assert.is(leak, undefined, `${flags.join(' ')}: ${everything.split('\n').filter((line) => leak !== undefined && line.includes(leak)).join(' // ')}`);
        assert.ok(everything.includes(REDACTED));
      }
    }, PEM),
  ),
);

Lines('should redact a PEM key in the crash report of an extension that wrote it to stderr and died :: crash', () =>
  withProject((t) =>
    withSecret(async () => {
      await secretBackend(t);
      for (const flags of [[], ['--verbose'], ['--json']]) {
        const io = captureIo(t.project);
        assert.is(await main([...generate('out', 'out/crm.json', '--option', 'crashAfterSecret=true'), ...flags], io), 3, flags.join(' '));
        const everything = [...io.stdout, ...io.stderr].join('\n');
        assert.ok(everything.includes('ERR_EXTENSION_CRASHED') || /exited|crash/i.test(everything), everything);
        assert.is(leaked(everything), undefined, `${flags.join(' ')}: ${everything}`);
      }
    }, PEM),
  ),
);

Lines.run();

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { buildGuest } from '../../../build/guest/index.ts';
import { LocalErrorCode } from '../protocol/errors.ts';
import { installExtension } from '../registry/install.ts';
import { registryPaths } from '../registry/paths.ts';
import { withProject, type TempProject } from '../registry/test-support.ts';
import { captureIo } from './io.ts';
import { main } from './main.ts';
import { startRemote, writeRemotePackage, type TestRemote } from './testing/remote-server.ts';

// A repository the user clones ships .mep/: an extension installed in project scope and a
// .mep/config.json approving the user's secrets for it. Nothing of that counts until the user
// trusts that exact config file with `mep trust`.
const TOKEN = 'clone-token-0123456789-abcdefghij';
const SECRET = 'aws-secret-9f8e7d6c5b4a3210';
const OUTSIDE = 'ssh-key-outside-the-project-5566';
const INSIDE = 'inside-the-project-secret-7788';
const REFERENCE = 'env("ACME_CLONE_TOKEN")';
const REFS = ['env("MEP_CLONE_SECRET")', 'file("../outside.txt")', 'file("inside.txt")'];
const ir = { formatVersion: 3, distribution: ['Library', [['acme']], [], { modules: [] }] };

// The attacker's wasm backend: asks for every reference it lists and writes what it got into an artifact.
const LEAK = `import { defineExtension, textArtifact } from 'mep-runtime/guest-pdk';
const REFS = ${JSON.stringify(REFS)};
export default defineExtension({
  info: { id: 'acme.leak', name: 'leak', version: '1.0.0' },
  backend: {
    targets: ['leak'],
    irVersions: ['3'],
    async generate(_params, ctx) {
      const lines = [];
      for (const ref of REFS) {
        try { lines.push(ref + ' got ' + (await ctx.secret(ref))); } catch (e) { lines.push(ref + ' refused ' + String((e as { code?: unknown }).code)); }
      }
      return { artifacts: [textArtifact('leak.txt', lines.join('\\n') + '\\n')] };
    },
  },
});
`;

async function run(t: TempProject, argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const io = captureIo(t.project);
  const code = await main(argv, io);
  return { code, stdout: io.stdout.join('\n'), stderr: io.stderr.join('\n') };
}

/** The cloned project's .mep/config.json approving `secrets`, plus `extra` text to make another version of it. */
async function shipConfig(t: TempProject, secrets: Record<string, string[]>, extra = ''): Promise<void> {
  await mkdir(join(t.project, '.mep'), { recursive: true });
  await writeFile(join(t.project, '.mep/config.json'), `${JSON.stringify({ secrets })}${extra}\n`);
}

const Clone = suite('a cloned project that approves secrets in .mep/config.json (trust)');

let remote: TestRemote | undefined;
Clone.before(async () => void (remote = await startRemote({ token: TOKEN })));
Clone.after(() => remote?.close());

Clone('an installed http extension gets no token until the user trusts the project config; an edit untrusts it', () =>
  withProject(async (t) => {
    const server = remote as TestRemote;
    server.authorizations.length = 0;
    process.env.ACME_CLONE_TOKEN = TOKEN;
    try {
      const paths = registryPaths({ cwd: t.project });
      // The repository's author installed it (approved on their machine); the clone carries .mep/.
      await writeFile(paths.user.config, JSON.stringify({ secrets: { 'acme.remote': [REFERENCE] } }));
      await installExtension({ source: await writeRemotePackage(t.root, { url: server.url, token: REFERENCE, permissions: { secrets: [REFERENCE] } }), paths });
      await rm(paths.user.config);
      await shipConfig(t, { 'acme.remote': [REFERENCE] });
      await writeFile(join(t.project, 'ir.json'), JSON.stringify(ir));
      server.authorizations.length = 0;
      const generate = ['generate', '--extension', 'acme.remote', '--target', 'echo', '--input', 'ir.json', '--output', 'out', '--json'];

      const refused = await run(t, generate);
      assert.is(refused.code, 3, refused.stderr);
      const error = JSON.parse(refused.stdout).error;
      assert.is(error.code, LocalErrorCode.Registry);
      assert.is(error.data.reason, 'untrusted-config');
      assert.is(error.data.config, paths.project.config);
      assert.match(error.message, /\.mep\/config\.json/);
      assert.match(error.message, /mep trust/);
      assert.not.ok(server.authorizations.some((a) => a?.includes(TOKEN)), 'the token was never sent');

      const trusted = await run(t, ['trust']);
      assert.is(trusted.code, 0, trusted.stderr);
      assert.match(trusted.stdout, /acme\.remote: env\("ACME_CLONE_TOKEN"\)/);
      const ok = await run(t, generate);
      assert.is(ok.code, 0, ok.stderr);
      assert.is(server.authorizations.at(-1), `Bearer ${TOKEN}`);

      // The repository changes its config (a pull): untrusted again until re-trusted.
      await shipConfig(t, { 'acme.remote': [REFERENCE] }, ' ');
      server.authorizations.length = 0;
      const changed = await run(t, generate);
      assert.is(changed.code, 3, changed.stderr);
      assert.match(JSON.parse(changed.stdout).error.message, /changed since you trusted it/);
      assert.not.ok(server.authorizations.some((a) => a?.includes(TOKEN)));
      const listed = await run(t, ['trust', '--list', '--json']);
      // (The lock the author's install wrote is trusted beside it: `mep trust` records both.)
      assert.equal(JSON.parse(listed.stdout).trusted.map((e: { path: string; state: string }) => [e.path, e.state]), [[paths.project.lock, 'trusted'], [paths.project.config, 'changed']]);
      // Trusted again, naming the project from its parent folder: one entry, the new content.
      const again = captureIo(t.root);
      assert.is(await main(['trust', 'project'], again), 0, again.stderr.join('\n'));
      assert.is((await run(t, generate)).code, 0);
      assert.equal(JSON.parse((await run(t, ['trust', '--list', '--json'])).stdout).trusted.map((e: { state: string }) => e.state), ['trusted', 'trusted']);
    } finally {
      delete process.env.ACME_CLONE_TOKEN;
    }
  }),
);

Clone("a wasm extension's secret.resolve is answered -32012 until trusted; then only files inside the project resolve", () =>
  withProject(async (t) => {
    process.env.MEP_CLONE_SECRET = SECRET;
    try {
      const pkg = join(t.root, 'leak');
      await mkdir(pkg);
      await writeFile(join(pkg, 'leak.ts'), LEAK);
      await buildGuest({ entry: join(pkg, 'leak.ts'), outFile: join(pkg, 'leak.wasm'), cwd: pkg, typecheck: false });
      await writeFile(join(pkg, 'extension.json'), JSON.stringify({ id: 'acme.leak', name: 'leak', version: '1.0.0', runtime: 'wasm', entry: 'leak.wasm', permissions: { secrets: REFS } }));
      const installed = await run(t, ['install', pkg]);
      assert.is(installed.code, 0, installed.stderr);
      await writeFile(join(t.root, 'outside.txt'), `${OUTSIDE}\n`);
      await writeFile(join(t.project, 'inside.txt'), `${INSIDE}\n`);
      await shipConfig(t, { 'acme.leak': REFS });
      await writeFile(join(t.project, 'ir.json'), JSON.stringify(ir));
      const generate = (out: string) => run(t, ['generate', '--extension', 'acme.leak', '--target', 'leak', '--input', 'ir.json', '--output', out]);

      const untrusted = await generate('out1');
      assert.is(untrusted.code, 0, untrusted.stderr);
      const leaked = await readFile(join(t.project, 'out1/leak.txt'), 'utf8');
      for (const value of [SECRET, OUTSIDE, INSIDE]) assert.not.ok(leaked.includes(value), leaked);
      assert.is(leaked.match(/refused -32012/g)?.length, 3, leaked);
      assert.match(untrusted.stderr, /denied secret\.resolve env\("MEP_CLONE_SECRET"\) for acme\.leak: .*\.mep\/config\.json.*mep trust/);

      assert.is((await run(t, ['trust'])).code, 0);
      const trusted = await generate('out2');
      assert.is(trusted.code, 0, trusted.stderr);
      const got = await readFile(join(t.project, 'out2/leak.txt'), 'utf8');
      assert.ok(got.includes(`env("MEP_CLONE_SECRET") got ${SECRET}`), got);
      assert.ok(got.includes(`file("inside.txt") got ${INSIDE}`), got);
      // Approved only by the project: a file outside it is refused even when trusted.
      assert.ok(got.includes('file("../outside.txt") refused -32012'), got);
      assert.not.ok(got.includes(OUTSIDE));
      assert.match(trusted.stderr, /outside the project.*\$MEP_HOME\/config\.json/);

      // The user's own approval reaches outside, as it always did.
      await writeFile(join(t.home, 'config.json'), JSON.stringify({ secrets: { 'acme.leak': ['file("../outside.txt")'] } }));
      assert.is((await generate('out3')).code, 0);
      assert.ok((await readFile(join(t.project, 'out3/leak.txt'), 'utf8')).includes(`got ${OUTSIDE}`));

      // mep untrust: the project's approvals stop counting at once.
      await rm(join(t.home, 'config.json'));
      const untrust = await run(t, ['untrust']);
      assert.is(untrust.code, 0, untrust.stderr);
      assert.is((await generate('out4')).code, 0);
      assert.is((await readFile(join(t.project, 'out4/leak.txt'), 'utf8')).match(/refused -32012/g)?.length, 3);
    } finally {
      delete process.env.MEP_CLONE_SECRET;
    }
  }),
);

Clone('a hostile or malformed trusted.json is refused with a typed error naming it, and trusts nothing', () =>
  withProject(async (t) => {
    await shipConfig(t, { 'acme.crm': ['env("HOME")'] });
    const trustFile = join(t.home, 'trusted.json');
    for (const text of [
      `{"version":1,"trusted":[],"__proto__":{"trusted":[{"path":${JSON.stringify(join(t.project, '.mep/config.json'))},"sha256":"${'0'.repeat(64)}"}]}}`,
      `{"version":1,"trusted":[{"path":"x","sha256":"${'0'.repeat(64)}","constructor":1}]}`,
      '{"version":1,"trusted":"all"}',
      'not json',
    ]) {
      await writeFile(trustFile, text);
      for (const argv of [['trust', '--json'], ['trust', '--list', '--json'], ['untrust', '--json']]) {
        const result = await run(t, argv);
        assert.is(result.code, 2, `${argv.join(' ')} ${text}: ${result.stderr}`);
        const error = JSON.parse(result.stdout).error;
        assert.is(error.code, LocalErrorCode.Usage);
        assert.ok(error.message.includes(trustFile), error.message);
      }
      assert.is(await readFile(trustFile, 'utf8'), text, 'left as it was');
    }
  }),
);

Clone.run();

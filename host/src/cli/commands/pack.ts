/** `mep pack [dir]`: a package directory to a deterministic `.tgz` with `SHA256SUMS`. */
import { relative } from 'node:path';
import { packExtension } from '../../registry/pack.ts';
import { ExitCode, UsageError } from '../exit-codes.ts';
import type { Command } from './command.ts';
import { parseFlags } from './command.ts';
import { withJsonErrors } from './operation.ts';

/** `mep pack`: see its help text. */
export const packCommand: Command = {
  summary: 'pack an extension package into a .tgz with SHA256SUMS, for mep install',
  help: `Usage: mep pack [dir] [-o FILE] [--json]

Writes <id>-<version>.tgz (or FILE) holding, under one top directory <id>-<version>/, what
'mep install' takes from the package in dir (default .): extension.json, the entry (for a
process, also every <entry>-<os>-<arch> beside it, and the source map <executable>.map of each
that has one, so errors of the installed extension name the author's sources), the files the
manifest's "files" lists, and SHA256SUMS over them. Nothing else: not node_modules, not the sources. The archive is
deterministic (sorted members, fixed times, no owners): the same package gives the same bytes.
It prints the archive's sha256 and the install command that pins it:

  mep install ./acme.crm-1.2.0.tgz#sha256=<hex>

which checks that hash before extracting and every installed file against SHA256SUMS.
Build the entry first ('mep build src/extension.ts -o dist/extension.wasm'); 'mep build'
makes one artifact, 'mep pack' makes the package around it.

  -o, --out FILE   the archive to write (default <id>-<version>.tgz here)
  --json           print {file, sha256, bytes, files} as JSON`,
  async run(argv, io) {
    const { values, positionals } = parseFlags(argv, { out: { type: 'string', short: 'o' }, json: { type: 'boolean' } }, 'pack');
    return withJsonErrors(io, values.json, async () => {
      if (positionals.length > 1) throw new UsageError(`expected at most one package directory, got ${positionals.join(' ')}. Run 'mep pack --help'.`);
      const packed = await packExtension({ dir: positionals[0] ?? '.', cwd: io.cwd, ...(values.out ? { out: values.out } : {}) });
      if (values.json) {
        await io.json({ success: true, ...packed });
        return ExitCode.Ok;
      }
      const shown = relative(io.cwd, packed.file);
      const path = shown.startsWith('..') || shown === '' ? packed.file : `./${shown}`;
      io.out(`Packed ${packed.id} ${packed.version} (${packed.files.length} files, ${packed.bytes} bytes) to ${path}`);
      io.out(`  sha256 ${packed.sha256}`);
      io.out(`  install with: mep install ${path}#sha256=${packed.sha256}`);
      return ExitCode.Ok;
    });
  },
};

/** `mep list`: what is installed, what it claims, and whether it still matches its lock. */
import { listExtensions } from '../../registry/list.ts';
import type { ListedExtension } from '../../registry/list.ts';
import { ExitCode } from '../exit-codes.ts';
import type { Command } from './command.ts';
import { parseFlags } from './command.ts';
import { cliRegistryPaths } from './extension-argument.ts';
import { withJsonErrors } from './operation.ts';

function capabilities(e: ListedExtension): string {
  const c = e.capabilities;
  if (!c) return 'claims not read yet (read at first use)';
  const parts = [c.types.join('+')];
  if (c.targets.length) parts.push(`targets ${c.targets.join(', ')}`);
  if (c.languages.length) parts.push(`languages ${c.languages.join(', ')}`);
  if (c.irVersions.length) parts.push(`IR ${c.irVersions.join(', ')}`);
  return parts.join('; ');
}

export const listCommand: Command = {
  summary: 'list installed extensions and their capabilities',
  help: `Usage: mep list [--json]

Lists the extensions in .mep/extensions (project) and $MEP_HOME/extensions (user): id, version,
runtime, source, claimed capabilities (targets, languages, IR versions) and whether the
artifact still matches the sha256 in the lock. Exit 1 when an extension fails verification.

  --json   print the list as JSON`,
  async run(argv, io) {
    const { values } = parseFlags(argv, { json: { type: 'boolean' } }, 'list');
    return withJsonErrors(io, values.json, async () => {
      const { extensions, problems } = await listExtensions(cliRegistryPaths(io));
      if (values.json) {
        await io.json({ extensions, problems });
      } else if (extensions.length === 0 && problems.length === 0) {
        io.out("No extensions installed. Install one with 'mep install <directory|git-url|archive>'.");
      } else {
        for (const e of extensions) {
          const status = `${e.verified ? 'verified' : 'NOT VERIFIED'}${e.trust ? `, lock ${e.trust === 'changed' ? 'changed since trusted' : 'not trusted'}: does not run until 'mep trust'` : ''}`;
          io.out(`${e.id} ${e.version}  ${e.runtime}  ${e.scope}${e.shadowed ? ' (shadowed by the project copy)' : ''}  ${status}`);
          io.out(`  ${capabilities(e)}`);
          io.out(`  source: ${e.source ?? 'local directory'}${e.commit ? ` @ ${e.commit.slice(0, 12)}` : ''}`);
          if (e.problem) io.out(`  problem: ${e.problem}`);
        }
        for (const p of problems) io.out(`unreadable ${p.dir}: ${p.message}`);
      }
      return extensions.every((e) => e.verified) && problems.length === 0 ? ExitCode.Ok : ExitCode.Diagnostics;
    });
  },
};

/** `mep remove <id>`: uninstall an extension and drop its lock entry. */
import { removeExtension } from '../../registry/remove.ts';
import { ExitCode } from '../exit-codes.ts';
import type { Command } from './command.ts';
import { onePositional, parseFlags } from './command.ts';
import { cliRegistryPaths } from './extension-argument.ts';
import { withJsonErrors } from './operation.ts';

export const removeCommand: Command = {
  summary: 'uninstall an extension',
  help: `Usage: mep remove <id> [--user] [--json]

Removes .mep/extensions/<id>/ and its entry in .mep/extensions.lock; when the project does not
have it, the user-wide copy in $MEP_HOME. --user removes the user-wide copy only.

  --user   remove from $MEP_HOME (default ~/.mep)
  --json   print what was removed as JSON`,
  async run(argv, io) {
    const { values, positionals } = parseFlags(argv, { user: { type: 'boolean' }, json: { type: 'boolean' } }, 'remove');
    return withJsonErrors(io, values.json, async () => {
      const id = onePositional(positionals, 'extension id', 'remove');
      const removed = await removeExtension(cliRegistryPaths(io), id, values.user ? 'user' : undefined);
      if (values.json) await io.json({ success: true, ...removed });
      else io.out(`Removed ${removed.id} from ${removed.dir} (${removed.scope} scope).`);
      return ExitCode.Ok;
    });
  },
};

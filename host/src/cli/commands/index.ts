/** Every `mep` subcommand, by name. */
import type { Command } from './command.ts';
import { conformanceCommand } from './conformance.ts';
import { describeCommand } from './describe.ts';
import { generateCommand } from './generate.ts';

export const commands: Record<string, Command> = {
  conformance: conformanceCommand,
  describe: describeCommand,
  generate: generateCommand,
};

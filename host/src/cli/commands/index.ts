/** Every `mep` subcommand, by name. */
import type { Command } from './command.ts';
import { buildCommand } from './build.ts';
import { initCommand } from './init.ts';
import { compileCommand } from './compile.ts';
import { conformanceCommand } from './conformance.ts';
import { describeCommand } from './describe.ts';
import { generateCommand } from './generate.ts';
import { installCommand } from './install.ts';
import { listCommand } from './list.ts';
import { removeCommand } from './remove.ts';
import { serveCommand } from './serve.ts';
import { transformCommand } from './transform.ts';
import { validateCommand } from './validate.ts';

export const commands: Record<string, Command> = {
  build: buildCommand,
  init: initCommand,
  compile: compileCommand,
  conformance: conformanceCommand,
  describe: describeCommand,
  generate: generateCommand,
  install: installCommand,
  list: listCommand,
  remove: removeCommand,
  serve: serveCommand,
  transform: transformCommand,
  validate: validateCommand,
};

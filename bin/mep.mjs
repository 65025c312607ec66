#!/usr/bin/env node
// The `mep` command. The CLI is written in TypeScript and loaded through tsx, a runtime
// dependency, so `npx mep` works right after `npm ci` with no separate compile step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../host/src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));

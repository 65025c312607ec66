#!/usr/bin/env node
// The `mep` command. The CLI is written in TypeScript and loaded through tsx, a runtime
// dependency, so `npx mep` works right after `npm ci` with no separate compile step.
import { register } from 'tsx/esm/api';

// The Extism SDK loads node:wasi (which we never enable); keep its experimental-API warning
// out of every command's output, and let every other warning through.
process.removeAllListeners('warning');
process.on('warning', (warning) => {
  if (warning.name === 'ExperimentalWarning' && /WASI/.test(warning.message)) return;
  process.stderr.write(`${warning.name}: ${warning.message}\n`);
});
register();
const { main } = await import('../host/src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));

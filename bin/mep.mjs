#!/usr/bin/env node
// The `mep` command. Installed from npm, it runs the compiled JavaScript in dist/. In a checkout
// (the TypeScript sources are beside this file) it runs those sources through tsx, a dev
// dependency, so what you edit is what runs, with no compile step between.
import { existsSync } from 'node:fs';

const source = new URL('../host/src/cli/bin.ts', import.meta.url);
if (existsSync(source)) {
  const { register } = await import('tsx/esm/api');
  register();
  await import(source.href);
} else {
  await import('../dist/host/src/cli/bin.js');
}

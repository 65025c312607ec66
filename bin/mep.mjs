#!/usr/bin/env node
// The `mep` command. Installed from npm, it runs the compiled JavaScript in dist/. In a checkout
// (the TypeScript sources are beside this file) it runs those sources through tsx, a dev
// dependency, so what you edit is what runs, with no compile step between; without tsx it falls
// back to dist/ (npm run build) when there is one.
import { existsSync } from 'node:fs';

const source = new URL('../host/src/cli/bin.ts', import.meta.url);
// dist/cli/ is the command bundled by npm run build; dist/host/src/cli/ the same code unbundled.
const bundled = new URL('../dist/cli/bin.js', import.meta.url);
const compiled = existsSync(bundled) ? bundled : new URL('../dist/host/src/cli/bin.js', import.meta.url);

async function sourceLoader() {
  if (!existsSync(source)) return false;
  try {
    const { register } = await import('tsx/esm/api');
    register();
    return true;
  } catch (error) {
    if (error?.code !== 'ERR_MODULE_NOT_FOUND' || existsSync(compiled)) return false;
    process.stderr.write("mep: this checkout has neither tsx (run 'npm ci' for the dev dependencies) nor a build (run 'npm run build').\n");
    process.exit(2);
  }
}

await import((await sourceLoader()) ? source.href : compiled.href);

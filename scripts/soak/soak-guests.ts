/**
 * The guests a soak opens, built once: the Avro example to wasm (cached under .cache/examples)
 * and the hostile WAT fixtures written as .wasm files the served host can open by path.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { builtAvro, REPO_ROOT } from '../../examples/testing/built.ts';
import { loadWatFixture } from '../../fixtures/wasm/compile.ts';
import { soakGuests, type SoakGuests } from './scenarios.ts';

/** Builds (or finds cached) every guest of the soak. */
export async function prepareSoakGuests(): Promise<SoakGuests> {
  const dir = join(REPO_ROOT, '.cache', 'soak');
  mkdirSync(dir, { recursive: true });
  const wat = (name: string): string => {
    const path = join(dir, `${name}.wasm`);
    writeFileSync(path, loadWatFixture(name));
    return path;
  };
  return soakGuests(REPO_ROOT, { avroWasm: await builtAvro('wasm'), loopWasm: wat('loop'), trapWasm: wat('trap') });
}

/** The session mix of a soak: mostly ordinary work, with every hostile kind in each round of 20. */
export const SOAK_MIX = [
  'wasmPing', 'wasmGenerate', 'processCalls', 'wasmPing', 'abruptWasm',
  'wasmPing', 'cancel', 'wasmPing', 'crash', 'wasmGenerate',
  'wasmPing', 'processCalls', 'timeout', 'wasmPing', 'abruptProcess',
  'wasmPing', 'trap', 'wasmGenerate', 'hangOnShutdown', 'wasmPing',
] as const;

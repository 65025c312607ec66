/** Which guest ABI a wasm artifact needs, as `mep describe` and `mep install` report it. */
import { readFile } from 'node:fs/promises';
import { guestAbi, type GuestAbi } from '../../transport/wasm/index.ts';

/** One line per ABI: what it is and which hosts run it. */
const EXPLAINED: Record<GuestAbi, string> = {
  extism: 'extism (portable: imports only the Extism kernel and runs in any Extism host; mep-runtime attaches its host channel for bulk I/O, progress, secrets and interrupts)',
  'mep-imports': 'mep-imports (legacy: imports the MEP host functions from extism:host/user, so only mep-runtime can run it; rebuild it with mep build for a portable module)',
};

/** The ABI of the wasm module at `path` (a module with no host channel at all counts as `extism`). */
export async function wasmAbiOf(path: string): Promise<GuestAbi> {
  const module = await WebAssembly.compile(await readFile(path));
  return guestAbi(module) ?? 'extism';
}

/** `wasm ABI: …` for people. */
export function formatWasmAbi(abi: GuestAbi): string {
  return `wasm ABI: ${EXPLAINED[abi]}`;
}

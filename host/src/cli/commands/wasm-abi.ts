/** Which guest ABI a wasm artifact needs, as `mep describe` and `mep install` report it. */
import { compiledWasmModule, type LaunchSpec } from '../../registry/launch.ts';
import { guestAbi, type GuestAbi } from '../../transport/wasm/index.ts';

/** One line per ABI: what it is and which hosts run it. */
const EXPLAINED: Record<GuestAbi, string> = {
  extism: 'extism (portable: imports only the Extism kernel and runs in any Extism host; mep-runtime attaches its host channel for bulk I/O, progress, secrets and interrupts)',
  'mep-imports': 'mep-imports (legacy: imports the MEP host functions from extism:host/user, so only mep-runtime can run it; rebuild it with mep build for a portable module)',
};

/**
 * The ABI of the wasm module of `spec` (a module with no host channel at all counts as
 * `extism`), compiled as its session will run it: refused by size first, then cached.
 */
export async function wasmAbiOf(spec: LaunchSpec): Promise<GuestAbi> {
  return guestAbi(await compiledWasmModule(spec)) ?? 'extism';
}

/** `wasm ABI: …` for people. */
export function formatWasmAbi(abi: GuestAbi): string {
  return `wasm ABI: ${EXPLAINED[abi]}`;
}

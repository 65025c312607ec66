/**
 * Extism's variables (`var_set`, `var_get`) for one wasm instance, kept by the host within a
 * bound. The Extism JS SDK keeps each key of `var_set` as a string in a map for the plugin's life,
 * counted by nothing: a guest reusing one block of 16 MiB as 20 keys left 335 MB on the host's
 * heap after a call, and new keys in each call grew it without end, outside the memory cap (the
 * SDK's blocks are reset after every call, its variables are not). Here keys and values together
 * stay within {@link HOST_BOUNDS.maxExtismVarBytes} (Extism's own runtime keeps 1 MiB by default,
 * `max_var_bytes`): past it `var_set` fails the call with ERR_LIMIT, the variable not set. A value
 * is kept as a copy (the SDK kept a block index that its reset after the call made dangling) and
 * `var_get` gives the guest a new block of it, through the metered `alloc`.
 */
import { LocalErrorCode, MepError } from "../../protocol/errors.ts";
import { HOST_BOUNDS } from "../../protocol/limits.ts";
import type { ExtismCallContextLike, ExtismHostFunction } from "./guest-io.ts";

const utf8 = new TextDecoder();

/**
 * The kernel's `var_set` and `var_get` for the instance of extension `name`; `alloc` is the
 * metered kernel `alloc` (a block for a value read back counts as the guest's own allocation).
 */
export function createExtismVars(
  name: string,
  alloc: (cx: ExtismCallContextLike, size: bigint) => bigint,
): Record<"var_set" | "var_get", ExtismHostFunction> {
  const vars = new Map<string, Uint8Array>();
  let held = 0;
  const bound = HOST_BOUNDS.maxExtismVarBytes;
  const keyOf = (
    cx: ExtismCallContextLike,
    address: bigint,
  ): { key: string; size: number } | null => {
    const block = address === 0n ? null : cx.read(address);
    if (block === null) return null;
    const bytes = block.bytes();
    // Checked before decoding: a key of the whole allocation budget is never made a string.
    if (bytes.length > bound) throw tooMany(name, bytes.length, held);
    return { key: utf8.decode(bytes), size: bytes.length };
  };
  return {
    var_set: (cx, keyAddress: bigint, valueAddress: bigint) => {
      const named = keyOf(cx, keyAddress);
      if (named === null) return;
      const old = vars.get(named.key);
      const without = old === undefined ? held : held - named.size - old.length;
      if (valueAddress === 0n) {
        vars.delete(named.key);
        held = without;
        return;
      }
      const value = cx.read(valueAddress)?.bytes();
      if (value === undefined) return;
      const after = without + named.size + value.length;
      if (after > bound) throw tooMany(name, after, held);
      vars.set(named.key, value.slice());
      held = after;
    },
    var_get: (cx, keyAddress: bigint) => {
      const named = keyOf(cx, keyAddress);
      const value = named === null ? undefined : vars.get(named.key);
      if (value === undefined) return 0n;
      const address = alloc(cx, BigInt(value.length));
      if (address !== 0n) cx.read(address)?.bytes().set(value);
      return address;
    },
  };
}

function tooMany(name: string, size: number, held: number): MepError {
  return new MepError(
    LocalErrorCode.Limit,
    `Wasm extension "${name}" set more Extism vars than the host keeps: ${size} bytes of keys and values, above the bound of ${HOST_BOUNDS.maxExtismVarBytes} bytes an instance keeps in all (HOST_BOUNDS.maxExtismVarBytes, as Extism's max_var_bytes); the call was stopped. Keep large state in the guest's own memory, or report this to the extension's author.`,
    {
      data: {
        extension: name,
        limit: "maxExtismVarBytes",
        size,
        held,
        bound: HOST_BOUNDS.maxExtismVarBytes,
      },
    },
  );
}

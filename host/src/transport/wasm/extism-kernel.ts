/**
 * The Extism kernel functions that keep or make host memory for a wasm instance, taken over from
 * the SDK so that each is bounded: its variables (`var_set`, `var_get`) and its config entries
 * (`config_get`).
 *
 * Variables: the Extism JS SDK keeps each key of `var_set` as a string in a map for the plugin's
 * life, counted by nothing: a guest reusing one block of 16 MiB as 20 keys left 335 MB on the
 * host's heap after a call, and new keys in each call grew it without end, outside the memory cap
 * (the SDK's blocks are reset after every call, its variables are not). Here keys and values
 * together stay within {@link HOST_BOUNDS.maxExtismVarBytes} (Extism's own runtime keeps 1 MiB by
 * default, `max_var_bytes`): past it `var_set` fails the call with ERR_LIMIT, the variable not
 * set. A value is kept as a copy (the SDK kept a block index that its reset after the call made
 * dangling) and `var_get` gives the guest a new block of it.
 *
 * Config: the SDK answered each `config_get` with a new block of its own, past the `alloc` meter:
 * 3,000,000 reads of one entry in one call took the host to 1.4 GB before the deadline, and past
 * 32,767 blocks the addresses it gave were negative. Every block handed to the guest here goes
 * through the metered `alloc` (HOST_BOUNDS.maxExtismBlocks, the memory limit); past it the answer
 * is 0, as for an entry that is not there.
 */
import { LocalErrorCode, MepError } from '../../protocol/errors.ts';
import { HOST_BOUNDS } from '../../protocol/limits.ts';
import type { ExtismCallContextLike, ExtismHostFunction } from './guest-io.ts';

const utf8 = new TextDecoder();
const encoder = new TextEncoder();

/** A metered kernel `alloc`: the address of a new block, or 0 past a bound. */
type Alloc = (cx: ExtismCallContextLike, size: bigint) => bigint;

/** A new block (through `alloc`) holding `bytes`, or 0 when none may be made. */
function blockOf(cx: ExtismCallContextLike, alloc: Alloc, bytes: Uint8Array): bigint {
  const address = alloc(cx, BigInt(bytes.length));
  if (address !== 0n) cx.read(address)?.bytes().set(bytes);
  return address;
}

/** The kernel's `config_get` over `config`: each entry found is a new block made through `alloc`. */
export function createExtismConfig(config: Readonly<Record<string, string>>, alloc: Alloc): ExtismHostFunction {
  const values = new Map(Object.entries(config).map(([key, value]) => [key, encoder.encode(value)]));
  const longest = Math.max(0, ...[...values.keys()].map((key) => encoder.encode(key).length));
  return (cx, keyAddress: bigint) => {
    const block = keyAddress === 0n ? null : cx.read(keyAddress);
    // A key longer than every entry's names none: it is not decoded.
    if (block === null || block.bytes().length > longest) return 0n;
    const value = values.get(utf8.decode(block.bytes()));
    return value === undefined ? 0n : blockOf(cx, alloc, value);
  };
}

/**
 * The kernel's `var_set` and `var_get` for the instance of extension `name`; `alloc` is the
 * metered kernel `alloc` (a block for a value read back counts as the guest's own allocation).
 */
export function createExtismVars(name: string, alloc: Alloc): Record<'var_set' | 'var_get', ExtismHostFunction> {
  const vars = new Map<string, Uint8Array>();
  let held = 0;
  const bound = HOST_BOUNDS.maxExtismVarBytes;
  const keyOf = (cx: ExtismCallContextLike, address: bigint): { key: string; size: number } | null => {
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
      return value === undefined ? 0n : blockOf(cx, alloc, value);
    },
  };
}

function tooMany(name: string, size: number, held: number): MepError {
  return new MepError(
    LocalErrorCode.Limit,
    `Wasm extension "${name}" set more Extism vars than the host keeps: ${size} bytes of keys and values, above the bound of ${HOST_BOUNDS.maxExtismVarBytes} bytes an instance keeps in all (HOST_BOUNDS.maxExtismVarBytes, as Extism's max_var_bytes); the call was stopped. Keep large state in the guest's own memory, or report this to the extension's author.`,
    { data: { extension: name, limit: 'maxExtismVarBytes', size, held, bound: HOST_BOUNDS.maxExtismVarBytes } },
  );
}

/**
 * Node's URL and URLSearchParams guarded as the sandbox's are (build/engine/glue/globals/url.js):
 * Node's own are not proof against a rewritten built-in (its query parser pushes with
 * Array.prototype.push), so each constructor, method and accessor runs with the built-ins as
 * they were (../pristine.ts). The process binding installs it as it loads, before the
 * extension's code runs; `forEach` runs the extension's callback with the extension's built-ins.
 */
import { guardMethods, withBuiltins } from '../pristine.ts';

const NodeURL = globalThis.URL;
const NodeURLSearchParams = globalThis.URLSearchParams;
const { apply, construct } = Reflect;

/** A class whose constructor builds a `Base` under the guard (the same instances, the same statics). */
function guardedClass<T extends abstract new (...args: never[]) => object>(Base: T): T {
  const Guarded = function (this: unknown, ...args: unknown[]): object {
    if (new.target === undefined) throw new TypeError(`Class constructor ${Base.name} cannot be invoked without 'new'`);
    return withBuiltins(() => construct(Base as unknown as new (...a: unknown[]) => object, args, new.target));
  } as unknown as T;
  Object.defineProperty(Guarded, 'name', { value: Base.name });
  Object.defineProperty(Guarded, 'length', { value: Base.length });
  Object.defineProperty(Guarded, 'prototype', { value: Base.prototype });
  Object.setPrototypeOf(Guarded, Base);
  Object.defineProperty(Base.prototype, 'constructor', { value: Guarded, writable: true, configurable: true });
  return Guarded;
}

/** Puts the guarded URL and URLSearchParams in place of Node's (once). */
export function installProcessUrl(): void {
  if (globalThis.URL !== NodeURL) return;
  guardMethods(NodeURL.prototype);
  guardMethods(NodeURLSearchParams.prototype, ['forEach']);
  const GuardedURL = guardedClass(NodeURL);
  for (const name of ['canParse', 'parse'] as const) {
    const fn = (NodeURL as unknown as Record<string, unknown>)[name];
    if (typeof fn === 'function') Object.defineProperty(GuardedURL, name, { value: { [name]: (...args: unknown[]) => withBuiltins(() => apply(fn, NodeURL, args)) }[name], writable: true, configurable: true });
  }
  Object.defineProperty(globalThis, 'URL', { value: GuardedURL, writable: true, configurable: true });
  Object.defineProperty(globalThis, 'URLSearchParams', { value: guardedClass(NodeURLSearchParams), writable: true, configurable: true });
}

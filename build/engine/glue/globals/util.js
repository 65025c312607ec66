// Small helpers the globals share.

/** Defines a non-enumerable, writable, configurable property (how built-ins are defined). */
export const define = (obj, name, value) =>
  Object.defineProperty(obj, name, { value, writable: true, configurable: true, enumerable: false });

/** Defines the methods of `source` on `proto` as built-in methods (non-enumerable). */
export const defineMethods = (proto, source) => {
  for (const key of Reflect.ownKeys(source)) {
    const desc = Object.getOwnPropertyDescriptor(source, key);
    desc.enumerable = false;
    Object.defineProperty(proto, key, desc);
  }
};

/** Throws a TypeError the way Node's argument checks do (`code` ERR_INVALID_ARG_TYPE). */
export const invalidArg = (name, expected, value) => {
  const err = new TypeError(`The "${name}" argument must be ${expected}. Received ${value === null ? 'null' : typeof value}`);
  err.code = 'ERR_INVALID_ARG_TYPE';
  return err;
};

/** Formats an exception nobody caught (a timer callback, a microtask, a listener) for the log. */
export const uncaughtText = (error) => {
  if (error instanceof Error) {
    const head = `${error.name}: ${error.message}`;
    return error.stack ? `Uncaught ${head}\n${error.stack}`.trimEnd() : `Uncaught ${head}`;
  }
  let text;
  try { text = typeof error === 'string' ? `'${error}'` : String(error); } catch (e) { text = Object.prototype.toString.call(error); }
  return `Uncaught ${text}`;
};

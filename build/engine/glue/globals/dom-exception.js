// DOMException, as Node and browsers have it: an Error whose `name` says what kind of failure
// it is (AbortError, DataCloneError, InvalidCharacterError, ...) and a legacy numeric `code`.
import { define } from './util.js';

const CODES = {
  IndexSizeError: 1, HierarchyRequestError: 3, WrongDocumentError: 4, InvalidCharacterError: 5,
  NoModificationAllowedError: 7, NotFoundError: 8, NotSupportedError: 9, InvalidStateError: 11,
  SyntaxError: 12, InvalidModificationError: 13, NamespaceError: 14, InvalidAccessError: 15,
  TypeMismatchError: 17, SecurityError: 18, NetworkError: 19, AbortError: 20, URLMismatchError: 21,
  QuotaExceededError: 22, TimeoutError: 23, InvalidNodeTypeError: 24, DataCloneError: 25,
};
const NAME = Symbol('name');
const MESSAGE = Symbol('message');

export function installDomException(G) {
  class DOMException extends Error {
    constructor(message = '', options = 'Error') {
      super();
      const name = typeof options === 'object' && options !== null ? String(options.name ?? 'Error') : String(options);
      define(this, NAME, name);
      define(this, MESSAGE, String(message));
      if (typeof options === 'object' && options !== null && 'cause' in options) define(this, 'cause', options.cause);
      delete this.message; // QuickJS gives every Error an own `message`; DOMException reads it from the prototype
    }
    get name() { return this[NAME]; }
    get message() { return this[MESSAGE]; }
    get code() { return CODES[this[NAME]] ?? 0; }
  }
  Object.defineProperty(DOMException.prototype, Symbol.toStringTag, { value: 'DOMException', configurable: true });
  define(G, 'DOMException', DOMException);
  return DOMException;
}

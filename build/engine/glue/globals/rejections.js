// The text of an unhandled promise rejection, which rejections.c logs (at warn level) when the
// microtasks have run out and nothing handled it: the reason as Node prints it, an error with
// its stack.
import { inspect } from './inspect.js';

export function installRejections(G, native) {
  native.reportRejection = (reason) => {
    let text;
    if (reason instanceof Error) {
      const head = `${reason.name}: ${reason.message}`;
      text = reason.stack ? `${head}\n${reason.stack}`.trimEnd() : head;
    } else {
      text = inspect(reason);
    }
    native.log(2, `Unhandled promise rejection: ${text}`);
  };
}

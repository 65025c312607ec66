// The guest's platform globals (issue 23), bundled by build/engine/compile.ts into one script
// the engine evaluates after prelude.js, before any snapshot: what is installed here costs
// nothing at run time. Each file installs one family of globals; DOMException comes first
// because the others throw it.
import { installBase64 } from './base64.js';
import { installClock } from './clock.js';
import { installClone } from './clone.js';
import { installConsole } from './console.js';
import { installCrypto } from './crypto.js';
import { installDomException } from './dom-exception.js';
import { installEvents } from './events.js';
import { installLocale } from './locale.js';
import { installRejections } from './rejections.js';
import { installText } from './text.js';
import { installTimers } from './timers.js';
import { installUrl } from './url.js';

globalThis.__mep_install_globals = function install(native) {
  const G = globalThis;
  installDomException(G);
  installEvents(G, native);
  installTimers(G, native);
  installClock(G, native);
  installConsole(G, native);
  installText(G, native);
  installClone(G);
  installBase64(G);
  installCrypto(G, native);
  installUrl(G);
  installLocale(G, native);
  installRejections(G, native);
};

// The guest's platform globals (issue 23), bundled by build/engine/compile.ts into one script
// the engine evaluates after prelude.js, before any snapshot: what is installed here costs
// nothing at run time. Each file installs one family of globals; the order matters only where
// one uses another (events before timers' users, DOMException first).
import { installClock } from './clock.js';
import { installTimers } from './timers.js';

globalThis.__mep_install_globals = function install(native) {
  const G = globalThis;
  installTimers(G, native);
  installClock(G, native);
};

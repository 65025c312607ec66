/** This host's identity as sent in `morphir.initialize` (MEP 0.1, Initialization). */
import type { HostInfo } from '../protocol/index.ts';

/** The version of mep-runtime, compared with an extension's `requires.host`. */
export const HOST_VERSION = '0.1.0';

/** The default `host` member of `morphir.initialize`. */
export const HOST_INFO: HostInfo = { kind: 'cli', name: 'mep-runtime', version: HOST_VERSION };

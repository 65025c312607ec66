/**
 * The workerd entry: the Avro backend, bound by the config as the wasm module `avro.wasm` (with
 * the host-channel trampoline `mep-host-trampoline.wasm`, which workerd will not compile itself),
 * answering `POST` of a Morphir IR with the generated artifacts (see generate-handler.ts).
 */
import avro from './avro.wasm';
import hostTrampoline from './mep-host-trampoline.wasm';
import { createGenerateHandler } from './generate-handler.ts';

const handle = createGenerateHandler({ module: avro, name: 'avro.wasm', hostTrampoline });

export default {
  fetch(request: Request): Promise<Response> {
    return handle(request);
  },
};

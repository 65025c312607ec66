/**
 * The workerd entry: the Avro backend, bound by the config as the wasm module `avro.wasm` (with
 * the host-channel trampoline `mep-host-trampoline.wasm`, which workerd will not compile itself).
 * It speaks MEP over HTTP at `/extensions/avro` and `/mep` (mep-http-handler.ts: the wire of
 * `mep serve --http`), and answers `POST /` of a Morphir IR with the generated artifacts
 * (generate-handler.ts).
 */
import avro from './avro.wasm';
import hostTrampoline from './mep-host-trampoline.wasm';
import { createGenerateHandler } from './generate-handler.ts';
import { createMepHttpHandler } from './mep-http-handler.ts';

const generate = createGenerateHandler({ module: avro, name: 'avro.wasm', hostTrampoline });
const mep = createMepHttpHandler({ module: avro, name: 'avro', hostTrampoline });

export default {
  async fetch(request: Request): Promise<Response> {
    return (await mep(request)) ?? generate(request);
  },
};

/**
 * The workerd entry: the Avro backend, bound by the config as the wasm module `avro.wasm` (with
 * the host-channel trampoline `mep-host-trampoline.wasm`, which workerd will not compile itself).
 * It speaks MEP over HTTP at `/extensions/avro` and `/mep` (mep-http-handler.ts: the wire of
 * `mep serve --http`), and answers `POST /` of a Morphir IR with the generated artifacts
 * (generate-handler.ts). With the secret `MEP_TOKEN` bound, every route but `GET /health` asks
 * for `Authorization: Bearer <MEP_TOKEN>` (edge-worker.ts).
 */
import avro from './avro.wasm';
import hostTrampoline from './mep-host-trampoline.wasm';
import { createEdgeWorker, type EdgeWorkerEnv } from './edge-worker.ts';

const worker = createEdgeWorker({ module: avro, name: 'avro', hostTrampoline });

export default {
  async fetch(request: Request, env: EdgeWorkerEnv): Promise<Response> {
    return worker.fetch(request, env);
  },
};

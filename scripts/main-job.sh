#!/usr/bin/env bash
# The main job: build the example Avro extension to a sandboxed wasm module, then generate Avro
# schemas from a committed Morphir IR with it, and list what was written.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p out
node bin/mep.mjs build examples/avro/extension.ts -o out/avro.wasm
# The showcase model (records, enums, payload constructors, Maybe/List/Set/Dict, tuples, Char,
# Decimal, generics, cross-module references) compiled with morphir-elm; its three generic or
# opaque types are reported as warnings and skipped instead of failing the run.
node bin/mep.mjs generate --extension out/avro.wasm --target avro \
  --input fixtures/ir/showcase/morphir-ir.json --output out/avro --option unsupported=warn-and-skip

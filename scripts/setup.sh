#!/usr/bin/env bash
# Sets up a fresh Debian machine for mep-runtime and, unless --no-main-job is given, runs the
# main job: build the example Avro extension to wasm and generate Avro from a sample Morphir IR.
# Safe to run again: every step skips what is already in place.
set -euo pipefail
cd "$(dirname "$0")/.."

main_job=1
for arg in "$@"; do
  case "$arg" in
    --no-main-job) main_job=0 ;;
    *) echo "setup: unknown argument '$arg' (expected --no-main-job)" >&2; exit 2 ;;
  esac
done

# Debian packages: the wasm toolchain for the guest engine (clang/lld 19, wasi-libc and the
# wasm32 compiler runtime), binaryen's native wasm-opt, wabt for hand-written test guests,
# Chromium for the browser embedding tests, Apache Avro's Python library (Avro 1.11), which
# the Avro example's tests use as a second schema parser beside avsc, and Apache Avro for Java
# (1.8.2: the parser, the IDL parser and SpecificCompiler) with a JDK, with which they compile
# the generated schemas to Java classes, javac them and round-trip data through them. valgrind
# counts the native engine's instructions in bench/callgrind.bench.ts. nginx (light) is the load
# balancer in front of `mep serve --http` replicas and wrk the load generator of the scale-out
# test and bench (deploy/, bench/scale-out.bench.ts). gcc builds the native quickjs-ng runners of
# the test262 differential (scripts/test262/native.ts).
debs=(gcc clang-19 lld-19 llvm-19 wasi-libc libclang-rt-19-dev-wasm32 binaryen wabt chromium python3-avro
  openjdk-17-jdk-headless libavro-java libavro-compiler-java valgrind nginx-light wrk)
missing=()
for p in "${debs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# npm packages, exactly as locked. Install scripts stay off: every binary we use ships inside
# its registry package (esbuild, wizer, workerd).
npm ci --no-audit --no-fund --ignore-scripts

# The guest engine: quickjs-ng's C sources (Debian's qjs-src package, fetched from Debian's
# archive by its pinned sha256, unpacked with dpkg-deb) compiled to wasm. Cached under
# .cache/engine so only the first run pays for it.
npm run --silent build:engine

if [ "$main_job" = 1 ]; then
  npm run --silent main-job
fi

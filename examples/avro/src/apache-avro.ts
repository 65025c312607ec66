/**
 * Test-only check of Avro JSON artifacts with Apache Avro's own Python implementation (Debian
 * `python3-avro`, Avro 1.11; scripts/setup.sh installs it): a second, stricter toolchain beside
 * avsc. Every `.avsc` goes through `avro.schema.parse` and every `.avpr` through
 * `avro.protocol.parse`, all in one Python process. IDL is not checked here (Python has no IDL
 * reader), nor is linked output (it needs a registry).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { Artifact } from './json-syntax.ts';

const SCRIPT = `
import json, sys
import avro, avro.schema, avro.protocol
failures = []
for item in json.load(sys.stdin):
    try:
        if item["path"].endswith(".avpr"):
            avro.protocol.parse(item["content"])
        else:
            avro.schema.parse(item["content"])
    except Exception as error:
        failures.append({"path": item["path"], "error": type(error).__name__ + ": " + str(error)[:300]})
json.dump({"version": avro.__version__, "failures": failures}, sys.stdout)
`;

/** Debian's interpreter carries `python3-avro`; a pyenv or venv `python3` on PATH may not. */
const PYTHON = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';

/** What Apache Avro said about a batch of artifacts. */
export interface ApacheAvroVerdict {
  readonly version: string;
  readonly failures: readonly { path: string; error: string }[];
}

/**
 * Parse `.avsc`/`.avpr` artifacts with Apache Avro (Python).
 * @throws {Error} when Python or its `avro` package is missing, saying how to install it.
 */
export function parseWithApacheAvro(artifacts: readonly Pick<Artifact, 'path' | 'content'>[]): ApacheAvroVerdict {
  const input = artifacts.filter((a) => a.path.endsWith('.avsc') || a.path.endsWith('.avpr')).map((a) => ({ path: a.path, content: a.content }));
  const run = spawnSync(PYTHON, ['-c', SCRIPT], { input: JSON.stringify(input), encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (run.error || run.status !== 0) {
    throw new Error(`Apache Avro (Python) could not run with ${PYTHON}: ${run.error?.message ?? run.stderr.trim().split('\n').pop()}; install the Debian package python3-avro (bash scripts/setup.sh does).`);
  }
  return JSON.parse(run.stdout) as ApacheAvroVerdict;
}

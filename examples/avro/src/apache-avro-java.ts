/**
 * Test-only check of Avro artifacts with Apache Avro's Java toolchain, the one most Avro users
 * build on: Debian's `libavro-java` and `libavro-compiler-java` (Avro 1.8.2 on bookworm) and the
 * JDK's `javac` (scripts/setup.sh installs them). A batch of units runs in one JVM
 * (`examples/avro/java/AvroJavaCheck.java`, started from source): each unit's files are parsed
 * (`Schema.Parser`, `Protocol.parse`, the IDL parser), turned into Java classes by
 * `SpecificCompiler`, compiled with `javac`, and Avro binary data is decoded into and encoded
 * back from the generated classes.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Artifact } from './json-syntax.ts';

const CHECKER = join(dirname(fileURLToPath(import.meta.url)), '..', 'java', 'AvroJavaCheck.java');
const JARS = '/usr/share/java';
/** Avro 1.8.2 and what its parser, compiler and generated classes need at run time. */
const CLASSPATH = [
  'avro',
  'avro-compiler',
  'avro-guava-dependencies',
  'jackson-core-asl',
  'jackson-mapper-asl',
  'velocity',
  'commons-collections3',
  'commons-lang',
  'commons-compress',
  'joda-time',
  'paranamer',
  'slf4j-api',
  'slf4j-nop',
].map((jar) => join(JARS, `${jar}.jar`));

/**
 * The client compiler only and a small serial heap: the checker is a short batch job, where the
 * optimizing compiler's warm-up and a parallel collector's threads cost more than they give.
 */
const JVM_FLAGS = ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC', '-Xss4m'];

/** One output of the backend, parsed as its layout is meant to be loaded. */
export interface JavaPart {
  /** The files in the order they are parsed. */
  readonly artifacts: readonly Pick<Artifact, 'path' | 'content'>[];
  /**
   * `shared`: one `Schema.Parser` for every `.avsc` (a registry, as the shared layout is loaded);
   * `per-file`: a new one per file (self-contained files each define their closure again);
   * `by-name`: a new one per file, which first reads the file of each name the file uses without
   * defining it (the linked layout: `a.b.C` is defined in `a/b/C.avsc`).
   */
  readonly parser: 'shared' | 'per-file' | 'by-name';
}

/**
 * Outputs compiled together by one javac call: outputs whose Java packages differ (models of
 * different Morphir packages) share a unit, which keeps the JVM's work down.
 */
export interface JavaUnit {
  readonly name: string;
  readonly parts: readonly JavaPart[];
  /** Stop after parsing: no classes, no javac. */
  readonly parseOnly?: boolean;
  /** Avro binary values to decode into the generated class of that full name and encode again. */
  readonly roundTrips?: readonly { readonly className: string; readonly data: Uint8Array }[];
  /** Extra Java sources compiled with the generated classes (`name` is the file name). */
  readonly javaSources?: readonly { readonly name: string; readonly text: string }[];
  /** Classes among `javaSources` whose `public static Object run()` is called; its string is returned. */
  readonly probes?: readonly string[];
}

/** A failure in one stage of a unit. */
export interface JavaFailure {
  readonly stage: 'parse' | 'generate' | 'javac' | 'roundtrip' | 'probe';
  readonly file: string;
  readonly error: string;
}

/** What Apache Avro (Java) made of one unit. */
export interface JavaUnitVerdict {
  readonly name: string;
  readonly failures: readonly JavaFailure[];
  /** Java files SpecificCompiler generated (with any extra sources). */
  readonly javaFiles: number;
  /** Each round trip's decoded class and the bytes it encoded again. */
  readonly roundTrips: readonly { className: string; decodedClass: string; specific: boolean; data: Uint8Array }[];
  readonly probes: readonly string[];
  /** What was left out, and why (protocol interfaces without avro-ipc). */
  readonly notes: readonly string[];
}

/** What Apache Avro (Java) said about a batch. */
export interface JavaVerdict {
  readonly version: string;
  readonly units: readonly JavaUnitVerdict[];
}

interface RawUnit extends Omit<JavaUnitVerdict, 'roundTrips'> {
  readonly roundTrips?: { class: string; decodedClass: string; specific: boolean; data: string }[];
}

/**
 * Run `units` through Avro's Java toolchain in one JVM.
 * @throws {Error} when Java or the Avro jars are missing, saying how to install them.
 */
export function checkWithApacheAvroJava(units: readonly JavaUnit[]): JavaVerdict {
  const missing = CLASSPATH.filter((jar) => !existsSync(jar));
  if (missing.length > 0) {
    throw new Error(`Apache Avro (Java) is not installed: ${missing.join(', ')} missing; install the Debian packages libavro-java and libavro-compiler-java (bash scripts/setup.sh does).`);
  }
  const work = mkdtempSync(join(tmpdir(), 'mep-avro-java-'));
  try {
    const job = units.map((unit, u) => {
      const dir = join(work, `unit-${u}`);
      const parts = unit.parts.map((part, p) => {
        for (const artifact of part.artifacts) {
          const file = join(dir, 'in', String(p), ...artifact.path.split('/'));
          mkdirSync(dirname(file), { recursive: true });
          writeFileSync(file, artifact.content);
        }
        return { dir: join(dir, 'in', String(p)), files: part.artifacts.map((a) => a.path), parser: part.parser };
      });
      return {
        name: unit.name,
        dir,
        parts,
        parseOnly: unit.parseOnly === true,
        roundTrips: (unit.roundTrips ?? []).map((t) => ({ class: t.className, data: Buffer.from(t.data).toString('base64') })),
        javaSources: unit.javaSources ?? [],
        probes: unit.probes ?? [],
      };
    });
    const jobFile = join(work, 'job.json');
    writeFileSync(jobFile, JSON.stringify({ units: job }));
    const run = spawnSync('java', [...JVM_FLAGS, '-cp', CLASSPATH.join(':'), CHECKER, jobFile], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
    if (run.error || run.status !== 0) {
      const why = run.error?.message ?? run.stderr.trim().split('\n').slice(-3).join(' | ');
      throw new Error(`Apache Avro (Java) could not run (${why}); install a JDK (Debian openjdk-17-jdk-headless) and libavro-compiler-java (bash scripts/setup.sh does).`);
    }
    const raw = JSON.parse(run.stdout) as { version: string; units: RawUnit[] };
    return {
      version: raw.version,
      units: raw.units.map((unit) => ({
        ...unit,
        roundTrips: (unit.roundTrips ?? []).map((t) => ({ className: t.class, decodedClass: t.decodedClass, specific: t.specific, data: new Uint8Array(Buffer.from(t.data, 'base64')) })),
      })),
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/*
 * Test-only: checks Avro artifacts with Apache Avro's Java toolchain (Debian libavro-java and
 * libavro-compiler-java; scripts/setup.sh installs them), all in one JVM. For each unit of a job:
 * parse every file (.avsc with Schema.Parser, .avpr with Protocol.parse, .avdl with the IDL
 * parser), generate Java classes from it with SpecificCompiler, compile those with javac (the
 * JDK's in-process compiler) and decode and re-encode Avro binary data through the generated
 * classes. Run by examples/avro/src/apache-avro-java.ts: java -cp <jars> AvroJavaCheck.java job.json
 */
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.Locale;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.apache.avro.Protocol;
import org.apache.avro.Schema;
import org.apache.avro.SchemaParseException;
import org.apache.avro.compiler.idl.Idl;
import org.apache.avro.compiler.specific.SpecificCompiler;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecord;
import org.codehaus.jackson.JsonNode;
import org.codehaus.jackson.map.ObjectMapper;
import org.codehaus.jackson.node.ArrayNode;
import org.codehaus.jackson.node.ObjectNode;

public class AvroJavaCheck {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern UNDEFINED = Pattern.compile("Undefined name: \"([^\"]+)\"");

  public static void main(String[] args) throws Exception {
    JsonNode job = JSON.readTree(new File(args[0]));
    ObjectNode out = JSON.createObjectNode();
    out.put("version", Schema.class.getPackage().getImplementationVersion());
    ArrayNode units = out.putArray("units");
    for (JsonNode unit : job.get("units")) units.add(runUnit(unit));
    JSON.writeValue(System.out, out);
  }

  private static ObjectNode runUnit(JsonNode unit) throws Exception {
    ObjectNode result = JSON.createObjectNode();
    result.put("name", unit.get("name").asText());
    ArrayNode failures = result.putArray("failures");
    File unitDir = new File(unit.get("dir").asText());
    Path sources = Files.createDirectories(unitDir.toPath().resolve("java"));
    Path classes = Files.createDirectories(unitDir.toPath().resolve("classes"));
    ArrayNode notes = result.putArray("notes");
    boolean parseOnly = unit.path("parseOnly").getBooleanValue();
    for (JsonNode part : unit.get("parts")) compilePart(part, sources, parseOnly, failures, notes);
    result.putArray("roundTrips");
    result.putArray("probes");
    if (parseOnly) {
      result.put("javaFiles", 0);
      return result;
    }
    for (JsonNode extra : unit.path("javaSources")) {
      Files.writeString(sources.resolve(extra.get("name").asText()), extra.get("text").asText());
    }
    List<File> javaFiles;
    try (Stream<Path> walk = Files.walk(sources)) {
      javaFiles = walk.filter(p -> p.toString().endsWith(".java")).map(Path::toFile).collect(Collectors.toList());
    }
    result.put("javaFiles", javaFiles.size());
    if (!javaFiles.isEmpty() && !javac(javaFiles, classes, failures)) return result;
    try (URLClassLoader loader = new URLClassLoader(new URL[] { classes.toUri().toURL() }, AvroJavaCheck.class.getClassLoader())) {
      ArrayNode trips = (ArrayNode) result.get("roundTrips");
      for (JsonNode trip : unit.path("roundTrips")) {
        try {
          trips.add(roundTrip(loader, trip.get("class").asText(), Base64.getDecoder().decode(trip.get("data").asText())));
        } catch (Throwable error) {
          failures.add(failure("roundtrip", trip.get("class").asText(), error));
        }
      }
      ArrayNode probes = (ArrayNode) result.get("probes");
      for (JsonNode probe : unit.path("probes")) {
        try {
          Method run = Class.forName(probe.asText(), true, loader).getMethod("run");
          probes.add(String.valueOf(run.invoke(null)));
        } catch (Throwable error) {
          failures.add(failure("probe", probe.asText(), error));
        }
      }
    }
    return result;
  }

  /** Parse one part's files and generate their classes into `sources`. */
  private static void compilePart(JsonNode part, Path sources, boolean parseOnly, ArrayNode failures, ArrayNode notes) {
    File dir = new File(part.get("dir").asText());
    // One parser for the whole part (a registry, as the shared layout is loaded), one per file
    // (self-contained files each define their closure again), or one per file that first reads
    // the file of each name it finds undefined (linked: a.b.C is defined in a/b/C.avsc).
    String mode = part.path("parser").getTextValue();
    boolean oneParser = "shared".equals(mode);
    boolean byName = "by-name".equals(mode);
    Schema.Parser shared = new Schema.Parser();
    for (JsonNode name : part.get("files")) {
      String file = name.asText();
      List<SpecificCompiler> compilers;
      try {
        File source = new File(dir, file);
        compilers = byName && file.endsWith(".avsc")
            ? List.of(new SpecificCompiler(parseByName(dir, source, new ArrayList<>())))
            : compilersFor(source, oneParser ? shared : new Schema.Parser(), notes);
      } catch (Throwable error) {
        failures.add(failure("parse", file, error));
        continue;
      }
      if (parseOnly) continue;
      for (SpecificCompiler compiler : compilers) {
        try {
          compiler.compileToDestination(null, sources.toFile());
        } catch (Throwable error) {
          failures.add(failure("generate", file, error));
        }
      }
    }
  }

  /**
   * The compilers for one file. A protocol with messages compiles to an interface that needs
   * avro-ipc, which Debian does not package: then only its types are compiled, and a note says so.
   */
  private static List<SpecificCompiler> compilersFor(File file, Schema.Parser parser, ArrayNode notes) throws Exception {
    String path = file.getName();
    Protocol protocol = null;
    if (path.endsWith(".avpr")) protocol = Protocol.parse(file);
    if (path.endsWith(".avdl")) {
      try (Idl idl = new Idl(file)) {
        protocol = idl.CompilationUnit();
      }
    }
    if (protocol == null) return List.of(new SpecificCompiler(parser.parse(file)));
    if (protocol.getMessages().isEmpty() || hasIpc()) return List.of(new SpecificCompiler(protocol));
    notes.add(path + ": the interface of protocol " + protocol.getName() + " needs avro-ipc (not installed); its types are compiled");
    List<SpecificCompiler> compilers = new ArrayList<>();
    for (Schema type : protocol.getTypes()) compilers.add(new SpecificCompiler(type));
    return compilers;
  }

  /**
   * Parse `file`, first parsing the file that defines each name it finds undefined: in the
   * linked layout the schema named a.b.C is the file a/b/C.avsc. `seen` guards against a loop.
   */
  private static Schema parseByName(File dir, File file, List<File> seen) throws Exception {
    Map<String, Schema> imports = new HashMap<>();
    for (;;) {
      Schema.Parser parser = new Schema.Parser();
      parser.addTypes(imports);
      try {
        return parser.parse(file);
      } catch (SchemaParseException error) {
        Matcher undefined = UNDEFINED.matcher(String.valueOf(error.getMessage()));
        File definer = undefined.find() ? new File(dir, undefined.group(1).replace('.', '/') + ".avsc") : null;
        if (definer == null || !definer.isFile() || seen.contains(definer)) throw error;
        seen.add(definer);
        Schema.Parser imported = new Schema.Parser();
        imported.addTypes(imports);
        parseByNameInto(dir, definer, seen, imported);
        imports.putAll(imported.getTypes());
      }
    }
  }

  private static void parseByNameInto(File dir, File file, List<File> seen, Schema.Parser into) throws Exception {
    Schema schema = parseByName(dir, file, seen);
    Map<String, Schema> types = new HashMap<>();
    collectNamed(schema, types);
    for (Map.Entry<String, Schema> entry : types.entrySet()) {
      if (!into.getTypes().containsKey(entry.getKey())) into.addTypes(Map.of(entry.getKey(), entry.getValue()));
    }
  }

  private static void collectNamed(Schema schema, Map<String, Schema> out) {
    switch (schema.getType()) {
      case RECORD:
        if (out.put(schema.getFullName(), schema) != null) return;
        for (Schema.Field field : schema.getFields()) collectNamed(field.schema(), out);
        return;
      case ENUM:
      case FIXED:
        out.put(schema.getFullName(), schema);
        return;
      case ARRAY:
        collectNamed(schema.getElementType(), out);
        return;
      case MAP:
        collectNamed(schema.getValueType(), out);
        return;
      case UNION:
        for (Schema branch : schema.getTypes()) collectNamed(branch, out);
        return;
      default:
    }
  }

  private static boolean hasIpc() {
    try {
      Class.forName("org.apache.avro.ipc.Callback");
      return true;
    } catch (ClassNotFoundException absent) {
      return false;
    }
  }

  private static final JavaCompiler COMPILER = ToolProvider.getSystemJavaCompiler();
  /** One file manager for every unit: it keeps the class path's jars open and indexed. */
  private static final StandardJavaFileManager FILES = COMPILER.getStandardFileManager(null, Locale.ROOT, null);

  private static boolean javac(List<File> files, Path classes, ArrayNode failures) throws Exception {
    DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
    {
      StandardJavaFileManager manager = FILES;
      List<String> options = List.of("-classpath", System.getProperty("java.class.path"), "-d", classes.toString(), "-nowarn", "-Xlint:none", "-proc:none", "-g:none", "-implicit:none");
      boolean ok = COMPILER.getTask(null, manager, diagnostics, options, null, manager.getJavaFileObjectsFromFiles(files)).call();
      for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
        if (d.getKind() != Diagnostic.Kind.ERROR) continue;
        ObjectNode f = failures.addObject();
        f.put("stage", "javac");
        f.put("file", d.getSource() == null ? "" : d.getSource().getName());
        f.put("error", d.getMessage(Locale.ROOT));
      }
      return ok;
    }
  }

  /**
   * Decode into the generated class, then encode it again. The data model must look classes up
   * through the loader that holds them (the generated MODEL$ uses Avro's own); the logical type
   * conversions each class declares per field are applied by the datum reader and writer.
   */
  private static ObjectNode roundTrip(ClassLoader loader, String className, byte[] data) throws Exception {
    Class<?> type = Class.forName(className, true, loader);
    Schema schema = (Schema) type.getField("SCHEMA$").get(null);
    SpecificData model = new SpecificData(loader);
    SpecificDatumReader<Object> reader = new SpecificDatumReader<>(schema, schema, model);
    BinaryDecoder decoder = DecoderFactory.get().binaryDecoder(data, null);
    Object value = reader.read(null, decoder);
    if (!decoder.isEnd()) throw new IllegalStateException("bytes left after decoding " + className);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(bytes, null);
    new SpecificDatumWriter<Object>(schema, model).write(value, encoder);
    encoder.flush();
    ObjectNode trip = JSON.createObjectNode();
    trip.put("class", className);
    trip.put("decodedClass", value.getClass().getName());
    trip.put("specific", value instanceof SpecificRecord);
    trip.put("data", Base64.getEncoder().encodeToString(bytes.toByteArray()));
    return trip;
  }

  private static ObjectNode failure(String stage, String file, Throwable error) {
    ObjectNode f = JSON.createObjectNode();
    f.put("stage", stage);
    f.put("file", file);
    Throwable root = error;
    while (root.getCause() != null && root.getCause() != root) root = root.getCause();
    String message = String.valueOf(root);
    f.put("error", message.length() > 400 ? message.substring(0, 400) : message);
    return f;
  }
}

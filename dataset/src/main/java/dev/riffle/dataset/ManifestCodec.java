package dev.riffle.dataset;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import dev.riffle.format.CorruptFileException;
import dev.riffle.format.RecordInput;
import dev.riffle.format.schema.RiffleSchema;
import dev.riffle.format.schema.SchemaLayout;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.roaringbitmap.longlong.Roaring64Bitmap;

/**
 * Manifests to and from JSON (with Jackson), and every check a reader makes before trusting one: a
 * manifest that parses but contradicts itself is as corrupt as a file with a bad checksum.
 */
public final class ManifestCodec {
  private ManifestCodec() {}

  private static final ObjectMapper MAPPER =
      new ObjectMapper()
          .enable(SerializationFeature.INDENT_OUTPUT)
          .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
          // Later minor revisions may add fields; a reader of this version ignores them.
          .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

  static final Pattern DATA_PATH =
      Pattern.compile(
          DatasetLayout.DATA_DIR
              + "/[A-Za-z0-9][A-Za-z0-9._-]*"
              + Pattern.quote(DatasetLayout.DATA_SUFFIX));
  static final Pattern SHA256 = Pattern.compile("[0-9a-f]{64}");
  static final Pattern CRC32C = Pattern.compile("[0-9a-f]{8}");

  /** The manifest as UTF-8 JSON bytes (deterministic: fixed field order, sorted maps). */
  public static byte[] write(Manifest m) {
    try {
      return MAPPER.writeValueAsBytes(m);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("manifest does not serialize", e);
    }
  }

  /**
   * Writes, parses and checks a small manifest, so that the code {@link #read} runs (Jackson's
   * record binding, the schema decoder) is loaded and built before a caller waits for it: a stage
   * does this on a background thread while its first requests are in flight.
   */
  public static void warmUp() {
    Schema arrow =
        new Schema(
            List.of(
                Field.nullable("x", new ArrowType.Int(32, true)),
                Field.nullable("y", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE))));
    Manifest m =
        new Manifest(
            Manifest.MANIFEST_VERSION,
            "warm-up",
            2,
            1L,
            "1970-01-01T00:00:00Z",
            encodeSchema(RiffleSchema.forWriting(arrow, Map.of(), List.of())),
            List.of(
                new Manifest.DataFile(
                    DatasetLayout.DATA_DIR + "/warm-up" + DatasetLayout.DATA_SUFFIX,
                    1,
                    "0".repeat(64),
                    1,
                    0,
                    "00000000")),
            new Manifest.Provenance("warm-up", "0", List.of()),
            null,
            null,
            Map.of("k", "v"),
            Map.of(),
            null);
    try {
      read(write(m), "warm-up manifest", 2);
    } catch (CorruptFileException e) {
      throw new IllegalStateException("the warm-up manifest does not read back", e);
    }
  }

  /**
   * What is wrong with a manifest that does not parse, in the manifest's terms: the field and the
   * kind of value it holds, not Jackson's Java class names and source excerpts ("Cannot deserialize
   * value of type `java.util.ArrayList<dev.riffle.dataset.Manifest$DataFile>`").
   */
  static String why(JsonProcessingException e) {
    String field = "";
    if (e instanceof JsonMappingException m) {
      StringBuilder b = new StringBuilder();
      for (JsonMappingException.Reference r : m.getPath()) {
        if (r.getFieldName() != null) {
          b.append(b.length() == 0 ? "" : ".").append(r.getFieldName());
        } else if (r.getIndex() >= 0) {
          b.append('[').append(r.getIndex()).append(']');
        }
      }
      field = b.toString();
    }
    String message = String.valueOf(e.getOriginalMessage());
    if (message.startsWith("No content to map")) {
      return "the file is empty";
    }
    if (e instanceof MismatchedInputException mi && mi.getTargetType() != null) {
      return (field.isEmpty() ? "the manifest" : "field '" + field + "'")
          + " must be "
          + kind(mi.getTargetType());
    }
    int source = message.indexOf(" (start marker at [Source");
    message = source < 0 ? message : message.substring(0, source);
    return (field.isEmpty() ? "" : "field '" + field + "': ") + message;
  }

  private static String kind(Class<?> type) {
    if (java.util.Collection.class.isAssignableFrom(type) || type.isArray()) {
      return "a list";
    }
    if (CharSequence.class.isAssignableFrom(type)) {
      return "a string";
    }
    if (Number.class.isAssignableFrom(type)
        || (type.isPrimitive() && type != boolean.class && type != char.class)) {
      return "a number";
    }
    if (type == Boolean.class || type == boolean.class) {
      return "true or false";
    }
    return "an object";
  }

  /**
   * Parses and checks a manifest.
   *
   * @param resource its name, for messages
   * @param expectedVersion the version its file name says
   * @throws CorruptFileException if it is not valid JSON, or contradicts itself or its name
   */
  public static Manifest read(byte[] json, String resource, long expectedVersion)
      throws CorruptFileException {
    Manifest m;
    try {
      m = MAPPER.readValue(json, Manifest.class);
    } catch (JsonProcessingException e) {
      long at = e.getLocation() == null ? 0 : Math.max(0, e.getLocation().getByteOffset());
      throw new CorruptFileException(resource, at, "not a valid manifest: " + why(e), e);
    } catch (IOException e) {
      throw new CorruptFileException(resource, 0, "not a valid manifest: " + e.getMessage(), e);
    }
    if (m == null) {
      throw new CorruptFileException(resource, 0, "empty manifest");
    }
    check(m, resource, expectedVersion);
    return m;
  }

  private static void check(Manifest m, String resource, long expectedVersion)
      throws CorruptFileException {
    if (m.manifestVersion() != Manifest.MANIFEST_VERSION) {
      throw bad(
          resource,
          "manifest format "
              + m.manifestVersion()
              + " is not supported (this "
              + "reader reads "
              + Manifest.MANIFEST_VERSION
              + ")");
    }
    if (m.version() != expectedVersion) {
      throw bad(resource, "says version " + m.version() + " but is stored as " + expectedVersion);
    }
    if (m.parentVersion() != null && (m.parentVersion() < 1 || m.parentVersion() >= m.version())) {
      throw bad(resource, "parent version " + m.parentVersion() + " is not before " + m.version());
    }
    if (m.datasetId() == null
        || m.datasetId().isEmpty()
        || m.createdAt() == null
        || m.schema() == null) {
      throw bad(resource, "datasetId, createdAt and schema are required");
    }
    schemaOf(m, resource);
    long next = 0;
    long bytes = 0;
    java.util.Set<String> paths = new java.util.HashSet<>();
    for (Manifest.DataFile f : m.files()) {
      if (f == null || f.path() == null || !DATA_PATH.matcher(f.path()).matches()) {
        throw bad(resource, "bad data file path " + (f == null ? null : f.path()));
      }
      if (!paths.add(f.path())) {
        throw bad(resource, "data file " + f.path() + " is listed twice");
      }
      if (f.sha256() == null || !SHA256.matcher(f.sha256()).matches()) {
        throw bad(resource, "data file " + f.path() + " has no valid sha256");
      }
      // Optional: manifests written before it existed lack it, and their files open unchecked.
      if (f.footerCrc32c() != null && !CRC32C.matcher(f.footerCrc32c()).matches()) {
        throw bad(
            resource,
            "data file "
                + f.path()
                + " has footerCrc32c '"
                + f.footerCrc32c()
                + "', not 8 lower-case hex digits");
      }
      if (f.byteLength() < 0) {
        throw bad(
            resource, "data file " + f.path() + " has a negative byteLength " + f.byteLength());
      }
      if (f.rowCount() < 0) {
        throw bad(resource, "data file " + f.path() + " has a negative rowCount " + f.rowCount());
      }
      if (f.firstRow() != next) {
        throw bad(
            resource,
            "data file "
                + f.path()
                + " has firstRow "
                + f.firstRow()
                + ", but the rowCounts before it add up to "
                + next);
      }
      // Global row ids and sizes are longs everywhere: a total past 2^63 - 1 cannot be read.
      next = total(next, f.rowCount(), f, "rowCount", resource);
      bytes = total(bytes, f.byteLength(), f, "byteLength", resource);
    }
    for (Map.Entry<String, String> s : m.splits().entrySet()) {
      if (s.getKey() == null || s.getKey().isEmpty() || s.getValue() == null) {
        throw bad(resource, "a split needs a name and rows");
      }
      checkRows(
          rowSet(s.getValue(), resource, "split " + s.getKey()),
          next,
          resource,
          "split " + s.getKey());
    }
    if (m.deletions() != null) {
      checkRows(rowSet(m.deletions(), resource, "deletions"), next, resource, "deletions");
    }
  }

  private static long total(
      long sum, long value, Manifest.DataFile f, String field, String resource)
      throws CorruptFileException {
    try {
      return Math.addExact(sum, value);
    } catch (ArithmeticException e) {
      throw bad(
          resource,
          "data file "
              + f.path()
              + " has "
              + field
              + " "
              + value
              + ": the total of the files' "
              + field
              + "s passes 2^63 - 1");
    }
  }

  private static void checkRows(Roaring64Bitmap rows, long total, String resource, String what)
      throws CorruptFileException {
    // Roaring64Bitmap orders ids as unsigned: last() is the largest unsigned id, so an id of 2^63
    // or more is negative as a long and would pass a signed comparison.
    if (!rows.isEmpty() && Long.compareUnsigned(rows.last(), total) >= 0) {
      throw bad(
          resource,
          what
              + " names row "
              + Long.toUnsignedString(rows.last())
              + ", outside [0, "
              + total
              + ")");
    }
  }

  /** Decodes a row set of a manifest, as corruption of that manifest if it does not decode. */
  static Roaring64Bitmap rowSet(String text, String resource, String what)
      throws CorruptFileException {
    try {
      return RowSets.decode(text);
    } catch (IOException e) {
      throw new CorruptFileException(resource, 0, what + ": " + e.getMessage(), e);
    }
  }

  /** The schema a manifest carries. */
  public static RiffleSchema schemaOf(Manifest m, String resource) throws CorruptFileException {
    byte[] block;
    try {
      block = Base64.getDecoder().decode(m.schema());
    } catch (IllegalArgumentException e) {
      throw bad(resource, "schema is not base64");
    }
    ByteBuffer b = ByteBuffer.wrap(block).order(ByteOrder.LITTLE_ENDIAN);
    return SchemaLayout.read(new RecordInput(resource + " (schema)").reset(b, 0, block.length, 0));
  }

  /** The schema block of a schema, base64, as manifests hold it. */
  public static String encodeSchema(RiffleSchema schema) {
    return Base64.getEncoder().encodeToString(SchemaLayout.write(schema));
  }

  private static CorruptFileException bad(String resource, String message) {
    return new CorruptFileException(resource, 0, message);
  }
}

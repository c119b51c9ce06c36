package dev.riffle.datagen;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Writes the rows of a sparse-counts kind ({@link CellsData}, {@link SparseData}) as an AnnData
 * {@code .h5ad} file written by anndata itself, so that what reads it (riffle's converter, or
 * scanpy) sees what a real atlas file holds: X a CSR float32 matrix of cells by genes, obs the
 * dictionary-encoded labels as categoricals. Java has no AnnData writer, so the rows go to raw
 * little-endian arrays in a temporary folder next to the output, and Python ({@code write_h5ad.py},
 * a resource of this package) maps them and calls anndata. The rows are those {@link Batches} gives
 * for the same seed, the very rows of the Riffle file.
 *
 * <p>Python is {@code $RIFFLE_PYTHON} if set, else the first of {@code python3} on the PATH and
 * {@code /usr/bin/python3} that imports anndata, numpy, pandas and scipy (a PATH python from pyenv
 * or a virtual environment often lacks them where Debian's python3-anndata has them).
 */
public final class H5adWriter {
  /** The environment variable that names the Python to use. */
  public static final String PYTHON_ENV = "RIFFLE_PYTHON";

  private static final String SCRIPT = "write_h5ad.py";
  private static final String IMPORTS = "import anndata, numpy, pandas, scipy.sparse";
  private static final int BUFFER_BYTES = 1 << 20;

  private H5adWriter() {}

  /**
   * The Python to run the script with.
   *
   * @throws IOException with a one-line message saying what to install, if none imports anndata
   */
  public static String python() throws IOException {
    String chosen = System.getenv(PYTHON_ENV);
    return python(
        chosen != null && !chosen.isBlank()
            ? List.of(chosen)
            : List.of("python3", "/usr/bin/python3"));
  }

  /** The first of {@code candidates} that imports what the script needs. */
  static String python(List<String> candidates) throws IOException {
    for (String python : candidates) {
      if (imports(python)) {
        return python;
      }
    }
    throw new IOException(
        "writing .h5ad needs Python with anndata, numpy, pandas and scipy (Debian: apt-get install"
            + " python3-anndata; or set "
            + PYTHON_ENV
            + " to such a python); tried "
            + String.join(", ", candidates));
  }

  private static boolean imports(String python) {
    try {
      Process p =
          new ProcessBuilder(python, "-c", IMPORTS)
              .redirectOutput(ProcessBuilder.Redirect.DISCARD)
              .redirectError(ProcessBuilder.Redirect.DISCARD)
              .start();
      if (!p.waitFor(120, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return false;
      }
      return p.exitValue() == 0;
    } catch (IOException e) {
      // Not installed (or not executable): try the next one.
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /**
   * Writes rows {@code [0, rows)} of {@code data} drawn from {@code seed} to {@code out}, replacing
   * it only once the whole file is written.
   *
   * @param genes the number of columns of the matrix (every index is below it)
   * @param rowsDone told the rows generated so far; may be null
   * @return the size of {@code out} in bytes
   * @throws IllegalArgumentException if {@code data} is not {@code indices} list&lt;int32&gt;,
   *     {@code values} list&lt;float32&gt; and dictionary-encoded utf8 labels
   */
  public static long write(
      SyntheticData data,
      int genes,
      BufferAllocator allocator,
      long rows,
      long seed,
      Path out,
      LongConsumer rowsDone)
      throws IOException {
    List<Field> labels = labels(data.schema());
    Path target = out.toAbsolutePath();
    Path dir = target.getParent();
    if (dir == null || !Files.isDirectory(dir)) {
      throw new NoSuchFileException(String.valueOf(dir), null, "directory of " + out);
    }
    String python = python();
    Path work = Files.createTempDirectory(dir, "." + target.getFileName() + ".");
    try {
      long nnz = writeArrays(data, labels, allocator, rows, seed, work, rowsDone);
      writeMeta(work, rows, genes, nnz, labels, data.dictionaries());
      Path script = work.resolve(SCRIPT);
      try (InputStream in = H5adWriter.class.getResourceAsStream(SCRIPT)) {
        if (in == null) {
          throw new IOException("the jar lacks " + SCRIPT);
        }
        Files.copy(in, script);
      }
      Path partial = work.resolve("out.h5ad");
      Path log = work.resolve("python.log");
      run(python, script, work, partial, log, out);
      Files.move(
          partial, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      return Files.size(target);
    } finally {
      deleteTree(work);
    }
  }

  /** The label fields, after checking that the schema is a counts matrix with labels. */
  private static List<Field> labels(Schema schema) {
    List<Field> fields = schema.getFields();
    boolean matrix =
        fields.size() >= 2
            && fields.get(0).getName().equals("indices")
            && isList(fields.get(0), new ArrowType.Int(32, true))
            && fields.get(1).getName().equals("values")
            && isList(fields.get(1), new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE));
    List<Field> labels = new ArrayList<>();
    for (Field f : fields.subList(Math.min(2, fields.size()), fields.size())) {
      if (f.getDictionary() == null) {
        matrix = false;
      }
      labels.add(f);
    }
    if (!matrix) {
      throw new IllegalArgumentException(
          "only indices list<int32> + values list<float32> with dictionary-encoded labels can be"
              + " written as .h5ad, not "
              + schema);
    }
    return labels;
  }

  private static boolean isList(Field f, ArrowType item) {
    return f.getType() instanceof ArrowType.List
        && f.getChildren().size() == 1
        && f.getChildren().get(0).getType().equals(item);
  }

  /** Writes indptr, indices, data and the label codes; returns the number of stored values. */
  private static long writeArrays(
      SyntheticData data,
      List<Field> labels,
      BufferAllocator allocator,
      long rows,
      long seed,
      Path work,
      LongConsumer rowsDone)
      throws IOException {
    List<LittleEndianFile> codes = new ArrayList<>();
    try (LittleEndianFile indptr = new LittleEndianFile(work.resolve("indptr.i64"));
        LittleEndianFile indices = new LittleEndianFile(work.resolve("indices.i32"));
        LittleEndianFile values = new LittleEndianFile(work.resolve("data.f32"))) {
      for (int k = 0; k < labels.size(); k++) {
        codes.add(new LittleEndianFile(work.resolve("obs_" + k + ".i32")));
      }
      long[] nnz = {0};
      indptr.putLong(0);
      Batches.generate(
          data,
          allocator,
          rows,
          seed,
          data.batchRows(),
          batch -> {
            append(batch, labels, nnz, indptr, indices, values, codes);
            return true;
          },
          rowsDone);
      return nnz[0];
    } finally {
      for (LittleEndianFile c : codes) {
        c.close();
      }
    }
  }

  private static void append(
      VectorSchemaRoot batch,
      List<Field> labels,
      long[] nnz,
      LittleEndianFile indptr,
      LittleEndianFile indices,
      LittleEndianFile values,
      List<LittleEndianFile> codes)
      throws IOException {
    ListVector indexLists = (ListVector) batch.getVector(0);
    IntVector indexData = (IntVector) indexLists.getDataVector();
    Float4Vector valueData = (Float4Vector) ((ListVector) batch.getVector(1)).getDataVector();
    int n = batch.getRowCount();
    for (int i = 0; i < n; i++) {
      int end = indexLists.getElementEndIndex(i);
      for (int k = indexLists.getElementStartIndex(i); k < end; k++) {
        indices.putInt(indexData.get(k));
        values.putFloat(valueData.get(k));
        nnz[0]++;
      }
      indptr.putLong(nnz[0]);
    }
    for (int l = 0; l < labels.size(); l++) {
      FieldVector v = batch.getVector(labels.get(l).getName());
      BaseIntVector index = (BaseIntVector) v;
      for (int i = 0; i < n; i++) {
        codes.get(l).putInt((int) index.getValueAsLong(i));
      }
    }
  }

  private static void writeMeta(
      Path work,
      long rows,
      int genes,
      long nnz,
      List<Field> labels,
      DictionaryProvider dictionaries)
      throws IOException {
    StringBuilder json = new StringBuilder();
    json.append("{\"n_obs\": ").append(rows);
    json.append(", \"n_vars\": ").append(genes);
    json.append(", \"nnz\": ").append(nnz);
    json.append(", \"obs\": [");
    for (int l = 0; l < labels.size(); l++) {
      Field f = labels.get(l);
      VarCharVector categories =
          (VarCharVector) dictionaries.lookup(f.getDictionary().getId()).getVector();
      json.append(l == 0 ? "" : ", ").append("{\"name\": ");
      quote(json, f.getName());
      json.append(", \"categories\": [");
      for (int c = 0; c < categories.getValueCount(); c++) {
        json.append(c == 0 ? "" : ", ");
        quote(json, new String(categories.get(c), StandardCharsets.UTF_8));
      }
      json.append("]}");
    }
    json.append("]}\n");
    Files.writeString(work.resolve("meta.json"), json, StandardCharsets.UTF_8);
  }

  /** Appends {@code s} as a JSON string. */
  static void quote(StringBuilder out, String s) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '"' || c == '\\') {
        out.append('\\').append(c);
      } else if (c < 0x20) {
        out.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
      } else {
        out.append(c);
      }
    }
    out.append('"');
  }

  private static void run(String python, Path script, Path work, Path partial, Path log, Path out)
      throws IOException {
    Process p =
        new ProcessBuilder(python, script.toString(), work.toString(), partial.toString())
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .redirectError(log.toFile())
            .start();
    int code;
    try {
      code = p.waitFor();
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while writing " + out);
    }
    if (code != 0) {
      throw new IOException(
          "could not write " + out + " with " + python + " (exit " + code + "): " + lastLine(log));
    }
  }

  /** The last non-blank line of the log: the script's one-line error, or Python's last word. */
  private static String lastLine(Path log) throws IOException {
    List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
    for (int i = lines.size() - 1; i >= 0; i--) {
      if (!lines.get(i).isBlank()) {
        return lines.get(i).strip();
      }
    }
    return "(no message)";
  }

  private static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  /** A file of little-endian numbers, buffered. */
  private static final class LittleEndianFile implements Closeable {
    private final FileChannel channel;
    private final ByteBuffer buffer =
        ByteBuffer.allocate(BUFFER_BYTES).order(ByteOrder.LITTLE_ENDIAN);

    LittleEndianFile(Path path) throws IOException {
      channel = FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
    }

    void putInt(int v) throws IOException {
      room(4);
      buffer.putInt(v);
    }

    void putLong(long v) throws IOException {
      room(8);
      buffer.putLong(v);
    }

    void putFloat(float v) throws IOException {
      room(4);
      buffer.putFloat(v);
    }

    private void room(int bytes) throws IOException {
      if (buffer.remaining() < bytes) {
        flush();
      }
    }

    private void flush() throws IOException {
      buffer.flip();
      while (buffer.hasRemaining()) {
        channel.write(buffer);
      }
      buffer.clear();
    }

    @Override
    public void close() throws IOException {
      try {
        flush();
      } finally {
        channel.close();
      }
    }
  }
}

package dev.riffle.convert;

import dev.riffle.dataset.Manifest;
import dev.riffle.dataset.storage.Storage;
import dev.riffle.dataset.write.DatasetWriter;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VariableWidthFieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Converts an Arrow IPC file or stream into a new dataset, batch by batch: a file through its
 * footer, a stream to its end-of-stream marker, every batch validated ({@link ArrowIpcInput}), so
 * that a truncated or damaged input fails naming itself and publishes nothing. Dictionary-encoded
 * top-level fields stay categorical; string columns named in {@link ConvertOptions#categorical()}
 * become categorical, from a first pass over the whole input ({@link Categoricals}).
 */
public final class ArrowIpcConverter {
  /** The tool name recorded in the provenance. */
  public static final String TOOL = "riffle convert arrow";

  private ArrowIpcConverter() {}

  /**
   * @param allocator holds the codes and dictionaries of {@link ConvertOptions#categorical()}
   *     columns; the input itself is read with an allocator of its own, bounded by its length (see
   *     {@link ArrowIpcInput})
   * @throws InputException naming the file, if it is no Arrow IPC data, is truncated or damaged, or
   *     a type is unsupported
   */
  public static ConvertResult convert(
      SourceFile input, Storage out, BufferAllocator allocator, ConvertOptions options)
      throws IOException {
    long start = System.nanoTime();
    String sha = input.sha256();
    var dataset =
        options
            .dataset()
            .withProvenance(
                new Manifest.Provenance(
                    TOOL,
                    ConvertOptions.version(),
                    List.of(new Manifest.Source(input.name(), input.length(), sha))));
    if (options.append()) {
      try (ArrowIpcInput in = ArrowIpcInput.open(input)) {
        options = options.forInput(in.root().getSchema(), out);
      }
    }
    FirstPass first = options.categorical().isEmpty() ? null : firstPass(input, options);
    try (ArrowIpcInput in = ArrowIpcInput.open(input)) {
      VectorSchemaRoot root = in.root();
      Schema schema = root.getSchema();
      // Arrow reads the dictionaries with the first batch; the writer declares them when it is
      // created, so that categories keep the file's list and order (unused ones too), not the
      // order the rows first use them in.
      boolean more = in.next();
      try (Categoricals categoricals =
          categoricals(input, schema, first, out, allocator, options)) {
        DatasetWriter writer;
        try {
          writer =
              options.writer(
                  input.name(),
                  out,
                  categoricals.schema(),
                  categoricals.dictionaries(in.dictionaries()),
                  dataset);
        } catch (dev.riffle.format.schema.UnsupportedTypeException e) {
          throw new InputException(input.name(), ParquetBatchReader.oneLine(e), e);
        }
        try (writer) {
          long rows = 0;
          long bytesSeen = 0;
          int batch = 0;
          for (; more; more = in.next()) {
            batch++;
            try {
              if (categoricals.isEmpty()) {
                writer.write(root);
              } else {
                try (Categoricals.Encoded e = categoricals.encode(root, allocator, input.name())) {
                  writer.write(e.root());
                }
              }
            } catch (IllegalArgumentException e) {
              // The writer checks what validation cannot (a dictionary index past its dictionary):
              // that is the input's fault too.
              throw new InputException(
                  input.name(),
                  "record batch "
                      + batch
                      + " (rows "
                      + rows
                      + " to "
                      + (rows + root.getRowCount() - 1)
                      + "): "
                      + ParquetBatchReader.oneLine(e),
                  e);
            }
            rows += root.getRowCount();
            options.progress().accept(in.bytesRead() - bytesSeen);
            bytesSeen = in.bytesRead();
          }
          Manifest m = writer.publish();
          return new ConvertResult(
              rows, input.length(), ConvertResult.dataBytes(m), System.nanoTime() - start, m);
        }
      }
    }
  }

  /** What the first pass over the input found: its schema and the named columns' values. */
  private record FirstPass(Schema schema, int[] columns, List<Categoricals.Distinct> values) {}

  /**
   * Reads the whole input once for the distinct values of the {@link ConvertOptions#categorical()}
   * columns (an IPC file or stream has no way to read one column alone), validating it as the
   * conversion does, so that a damaged input fails before anything is written. Its bytes count in
   * {@link ConvertOptions#progress()} as the conversion's do, so that the input is reported twice.
   */
  private static FirstPass firstPass(SourceFile input, ConvertOptions options) throws IOException {
    try (ArrowIpcInput in = ArrowIpcInput.open(input)) {
      Schema schema = in.root().getSchema();
      int[] columns = Categoricals.resolve(schema, options.categorical(), input.name());
      List<Categoricals.Distinct> values = new ArrayList<>();
      for (int c : columns) {
        values.add(new Categoricals.Distinct(schema.getFields().get(c).getName()));
      }
      long bytesSeen = 0;
      while (columns.length > 0 && in.next()) {
        for (int k = 0; k < columns.length; k++) {
          VariableWidthFieldVector v = (VariableWidthFieldVector) in.root().getVector(columns[k]);
          for (int i = 0; i < in.root().getRowCount(); i++) {
            if (!v.isNull(i)) {
              values.get(k).add(v.get(i));
            }
          }
        }
        // A pass over the whole input, as long as the conversion's own: progress reports both.
        options.progress().accept(in.bytesRead() - bytesSeen);
        bytesSeen = in.bytesRead();
      }
      return new FirstPass(schema, columns, values);
    }
  }

  private static Categoricals categoricals(
      SourceFile input,
      Schema schema,
      FirstPass first,
      Storage out,
      BufferAllocator allocator,
      ConvertOptions options)
      throws IOException {
    if (first == null || first.columns().length == 0) {
      return Categoricals.none(schema);
    }
    if (!first.schema().equals(schema)) {
      throw new InputException(input.name(), "its schema changed during the conversion");
    }
    return Categoricals.build(schema, first.columns(), first.values(), out, options, allocator);
  }
}

package dev.riffle.convert;

import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.DatasetView;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.ipc.ArrowWriter;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.api.WriteSupport;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.schema.MessageType;

/**
 * Writes one version of a dataset out as a Parquet file or an Arrow IPC file or stream, scanning it
 * in batches (memory: one batch plus the Parquet writer's row group buffer). Categorical fields
 * become their values in Parquet (strings for string categories), dictionary-encoded in its
 * dictionary pages (Parquet has no place for a category list or an ordered flag), and stay
 * dictionaries in Arrow.
 */
public final class Exporter {
  private Exporter() {}

  /** Rows per scanned batch. */
  static final int BATCH_ROWS = 1 << 15;

  /** Arrow IPC flavours. */
  public enum ArrowFormat {
    FILE,
    STREAM
  }

  /**
   * Exports to Parquet.
   *
   * @param progress told the rows done
   */
  public static ConvertResult toParquet(
      Dataset dataset,
      OutputTarget out,
      CompressionCodecName codec,
      BufferAllocator allocator,
      java.util.function.LongConsumer progress)
      throws IOException {
    long start = System.nanoTime();
    long rows = 0;
    try (out) {
      DictionaryDecoder decoder =
          new DictionaryDecoder(dataset.arrowSchema(), dictionaries(dataset));
      MessageType schema = ArrowToParquet.schema(decoder.schema());
      ArrowWriteSupport support = new ArrowWriteSupport(schema);
      try (ParquetWriter<Integer> w =
          new Builder(out.outputFile(), support)
              .withConf(new PlainParquetConfiguration())
              .withCompressionCodec(codec)
              .withDictionaryEncoding(true)
              .build()) {
        try (DatasetView.Cursor c = dataset.all().scan(names(dataset), BATCH_ROWS)) {
          while (true) {
            VectorSchemaRoot b = c.next();
            if (b == null) {
              break;
            }
            try (VectorSchemaRoot batch = decoder.decode(b, allocator)) {
              support.batch = batch;
              for (int i = 0; i < batch.getRowCount(); i++) {
                w.write(i);
              }
              rows += batch.getRowCount();
              progress.accept(batch.getRowCount());
            }
          }
        }
      }
      long bytes = out.commit();
      return new ConvertResult(rows, dataBytes(dataset), bytes, System.nanoTime() - start, null);
    }
  }

  /**
   * Exports to an Arrow IPC file (random access) or stream. Categorical fields stay dictionary
   * encoded with the dataset's dictionary: every category in its stored order, unused ones
   * included, with the ordered flag; the codes are written as the dataset returns them.
   */
  public static ConvertResult toArrow(
      Dataset dataset,
      OutputTarget out,
      ArrowFormat format,
      BufferAllocator allocator,
      java.util.function.LongConsumer progress)
      throws IOException {
    long start = System.nanoTime();
    Schema schema = dataset.arrowSchema();
    DictionaryProvider dictionaries = dictionaries(dataset);
    long rows = 0;
    try (out) {
      try (OutputStream os = out.stream();
          VectorSchemaRoot target = VectorSchemaRoot.create(schema, allocator);
          ArrowWriter w =
              format == ArrowFormat.FILE
                  ? new ArrowFileWriter(target, dictionaries, Channels.newChannel(os))
                  : new ArrowStreamWriter(target, dictionaries, Channels.newChannel(os))) {
        w.start();
        try (DatasetView.Cursor c = dataset.all().scan(names(dataset), BATCH_ROWS)) {
          while (true) {
            VectorSchemaRoot b = c.next();
            if (b == null) {
              break;
            }
            try (VectorSchemaRoot batch = b) {
              for (int i = 0; i < batch.getFieldVectors().size(); i++) {
                batch.getVector(i).makeTransferPair(target.getVector(i)).transfer();
              }
              target.setRowCount(batch.getRowCount());
              w.writeBatch();
              rows += batch.getRowCount();
              progress.accept(batch.getRowCount());
            }
          }
        }
        w.end();
      }
      long bytes = out.commit();
      return new ConvertResult(rows, dataBytes(dataset), bytes, System.nanoTime() - start, null);
    }
  }

  private static DictionaryProvider dictionaries(Dataset d) throws IOException {
    boolean any = d.arrowSchema().getFields().stream().anyMatch(f -> f.getDictionary() != null);
    return any ? d.dictionaries() : new DictionaryProvider.MapDictionaryProvider();
  }

  private static long dataBytes(Dataset d) {
    return ConvertResult.dataBytes(d.manifest());
  }

  private static List<String> names(Dataset d) {
    List<String> out = new ArrayList<>();
    for (Field f : d.arrowSchema().getFields()) {
      out.add(f.getName());
    }
    return out;
  }

  /** parquet-mr's builder for our write support. */
  private static final class Builder extends ParquetWriter.Builder<Integer, Builder> {
    private final ArrowWriteSupport support;

    Builder(OutputFile file, ArrowWriteSupport support) {
      super(file);
      this.support = support;
    }

    @Override
    protected Builder self() {
      return this;
    }

    @Override
    // Parquet (or Spark) still calls this override; its replacement is not in the version we use
    @SuppressWarnings("deprecation")
    protected WriteSupport<Integer> getWriteSupport(org.apache.hadoop.conf.Configuration conf) {
      return support;
    }

    @Override
    protected WriteSupport<Integer> getWriteSupport(
        org.apache.parquet.conf.ParquetConfiguration conf) {
      return support;
    }
  }
}

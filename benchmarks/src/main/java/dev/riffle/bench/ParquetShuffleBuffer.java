package dev.riffle.bench;

import dev.riffle.dataset.DatasetView;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.example.data.simple.convert.GroupRecordConverter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.ColumnIOFactory;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.io.MessageColumnIO;
import org.apache.parquet.io.RecordReader;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;

/**
 * What a Java user would otherwise run: a Parquet file read with stock Parquet-MR, row groups in a
 * random order, each decoded with the example {@link Group} record reader into per-row arrays, and
 * passed through a shuffle buffer of S rows (tf.data / WebDataset style: once the buffer is full,
 * each incoming row replaces a uniformly chosen resident row, which is emitted; at the end the
 * buffer is drained in random order). One thread reads and decodes, as a plain loop would.
 */
public final class ParquetShuffleBuffer {
  /** The Parquet copy's schema: a sparse row as two repeated fields, and the plate code. */
  static final MessageType SCHEMA =
      MessageTypeParser.parseMessageType(
          "message sparse { required int64 row; repeated int32 indices; repeated float values;"
              + " required int32 plate; }");

  private ParquetShuffleBuffer() {}

  /** One decoded row. */
  record Row(long id, int[] indices, float[] values, int plate) {}

  /**
   * Writes the view's {@code indices}, {@code values} and {@code plate} columns (plate as its
   * dictionary code) as a Parquet file with Parquet-MR's defaults (128 MiB row groups, 1 MiB
   * pages), uncompressed, like a user's export.
   */
  public static void write(DatasetView view, Path file, String label) throws IOException {
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    Files.deleteIfExists(tmp);
    SimpleGroupFactory groups = new SimpleGroupFactory(SCHEMA);
    long row = 0;
    try (ParquetWriter<Group> w =
        ExampleParquetWriter.builder(new LocalOutputFile(tmp))
            .withConf(new PlainParquetConfiguration())
            .withType(SCHEMA)
            .withCompressionCodec(CompressionCodecName.UNCOMPRESSED)
            .withWriteMode(ParquetFileWriter.Mode.OVERWRITE)
            .build()) {
      DatasetView.Cursor c = view.scan(List.of("indices", "values", label), 4096);
      while (true) {
        try (VectorSchemaRoot b = c.next()) {
          if (b == null) {
            break;
          }
          ListVector iv = (ListVector) b.getVector("indices");
          ListVector vv = (ListVector) b.getVector("values");
          IntVector items = (IntVector) iv.getDataVector();
          Float4Vector vals = (Float4Vector) vv.getDataVector();
          BaseIntVector plate = (BaseIntVector) b.getVector(label);
          for (int i = 0; i < b.getRowCount(); i++, row++) {
            Group g = groups.newGroup().append("row", row);
            for (int k = iv.getElementStartIndex(i); k < iv.getElementEndIndex(i); k++) {
              g.add("indices", items.get(k));
            }
            for (int k = vv.getElementStartIndex(i); k < vv.getElementEndIndex(i); k++) {
              g.add("values", vals.get(k));
            }
            g.add("plate", (int) plate.getValueAsLong(i));
            w.write(g);
          }
        }
      }
    }
    Files.move(tmp, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
  }

  /** Receives each batch: rows in batch order. */
  interface BatchSink {
    void accept(Row[] batch, int size);
  }

  /**
   * One epoch: row groups in a random order (by {@code seed}), rows through a shuffle buffer of
   * {@code bufferRows}, batches of {@code batchRows} to {@code sink} (the last one may be short).
   *
   * @return rows delivered
   */
  public static long epoch(Path file, int bufferRows, int batchRows, long seed, BatchSink sink)
      throws IOException {
    SplittableRandom random = new SplittableRandom(seed);
    Row[] buffer = new Row[bufferRows];
    int held = 0;
    Row[] batch = new Row[batchRows];
    int inBatch = 0;
    long delivered = 0;
    ParquetReadOptions options =
        ParquetReadOptions.builder(new PlainParquetConfiguration()).build();
    try (ParquetFileReader reader = new ParquetFileReader(new LocalInputFile(file), options)) {
      MessageType schema = reader.getFooter().getFileMetaData().getSchema();
      MessageColumnIO io = new ColumnIOFactory().getColumnIO(schema);
      int groups = reader.getRowGroups().size();
      int[] order = new int[groups];
      long[] first = new long[groups + 1];
      for (int g = 0; g < groups; g++) {
        order[g] = g;
        first[g + 1] = first[g] + reader.getRowGroups().get(g).getRowCount();
      }
      for (int g = groups - 1; g > 0; g--) {
        int j = random.nextInt(g + 1);
        int t = order[g];
        order[g] = order[j];
        order[j] = t;
      }
      for (int g : order) {
        PageReadStore pages = reader.readRowGroup(g);
        RecordReader<Group> records = io.getRecordReader(pages, new GroupRecordConverter(schema));
        long rows = pages.getRowCount();
        for (long i = 0; i < rows; i++) {
          Group r = records.read();
          int n = r.getFieldRepetitionCount(1);
          int[] idx = new int[n];
          for (int k = 0; k < n; k++) {
            idx[k] = r.getInteger(1, k);
          }
          int nv = r.getFieldRepetitionCount(2);
          float[] val = new float[nv];
          for (int k = 0; k < nv; k++) {
            val[k] = r.getFloat(2, k);
          }
          Row row = new Row(r.getLong(0, 0), idx, val, r.getInteger(3, 0));
          Row out;
          if (held < bufferRows) {
            buffer[held++] = row;
            continue;
          }
          int slot = random.nextInt(bufferRows);
          out = buffer[slot];
          buffer[slot] = row;
          batch[inBatch++] = out;
          if (inBatch == batchRows) {
            sink.accept(batch, inBatch);
            delivered += inBatch;
            inBatch = 0;
          }
        }
      }
    }
    // Drain: the rest of the buffer in random order.
    for (int i = held - 1; i >= 0; i--) {
      int j = random.nextInt(i + 1);
      batch[inBatch++] = buffer[j];
      buffer[j] = buffer[i];
      if (inBatch == batchRows) {
        sink.accept(batch, inBatch);
        delivered += inBatch;
        inBatch = 0;
      }
    }
    if (inBatch > 0) {
      sink.accept(batch, inBatch);
      delivered += inBatch;
    }
    return delivered;
  }
}

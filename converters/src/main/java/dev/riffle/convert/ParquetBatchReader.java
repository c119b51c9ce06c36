package dev.riffle.convert;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnReader;
import org.apache.parquet.column.impl.ColumnReadStoreImpl;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.ColumnIOFactory;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.MessageColumnIO;
import org.apache.parquet.io.RecordReader;
import org.apache.parquet.io.SeekableInputStream;
import org.apache.parquet.io.api.Converter;
import org.apache.parquet.io.api.GroupConverter;
import org.apache.parquet.io.api.PrimitiveConverter;
import org.apache.parquet.io.api.RecordMaterializer;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.Type;

/**
 * Reads one Parquet file as Arrow batches, one row group at a time: memory holds one row group's
 * column chunks (as parquet-mr reads them) and one batch, whatever the size of the file.
 */
final class ParquetBatchReader implements AutoCloseable {
  /** Receives each batch and owns it from then on. */
  interface BatchSink {
    void accept(VectorSchemaRoot batch) throws IOException, InterruptedException;
  }

  private final ParquetFileReader reader;
  private final String name;
  private final MessageType parquetSchema;
  private final Schema arrowSchema;

  private ParquetBatchReader(ParquetFileReader reader, String name, Schema arrowSchema) {
    this.reader = reader;
    this.name = name;
    this.parquetSchema = reader.getFileMetaData().getSchema();
    this.arrowSchema = arrowSchema;
  }

  /**
   * Opens a file and reads its footer.
   *
   * @throws InputException if it is no Parquet file, is truncated, or has an unsupported type
   */
  static ParquetBatchReader open(InputFile file, String name) throws IOException {
    requireParquetFraming(file, name);
    ParquetFileReader r;
    try {
      r =
          ParquetFileReader.open(
              file, ParquetReadOptions.builder(new PlainParquetConfiguration()).build());
    } catch (RuntimeException | IOException e) {
      if (e instanceof java.nio.file.NoSuchFileException) {
        throw (IOException) e;
      }
      // parquet-java names the file by its InputFile's toString ("LocalInputFile@2b84bb4b").
      String why = oneLine(e);
      String prefix = file + " is not a Parquet file";
      if (why.startsWith(prefix)) {
        why = why.substring(prefix.length()).replaceAll("^[.\\s]+", "");
        if (why.startsWith("(") && why.endsWith(")")) {
          why = why.substring(1, why.length() - 1);
        }
      }
      why = why.replace(String.valueOf(file), "it");
      throw new InputException(name, "not a readable Parquet file (" + why + ")", e);
    }
    try {
      refuseUnreadableCodecs(r, name);
      return new ParquetBatchReader(
          r, name, ParquetSchemas.toArrow(r.getFileMetaData().getSchema(), name));
    } catch (IOException | RuntimeException e) {
      r.close();
      throw e;
    }
  }

  /**
   * Refuses what cannot be a Parquet file (a stray text file in an input folder, a truncated copy)
   * in plain words, from its last 8 bytes: a footer length and the magic {@code PAR1} ({@code PARE}
   * for an encrypted footer), before parquet-java's own messages ("length is too low", "Expected
   * magic number at tail, but found [48, 48, 48, 10]") would.
   */
  private static void requireParquetFraming(InputFile file, String name) throws IOException {
    long length = file.getLength();
    // "PAR1" at the start, a footer, its 4-byte length and "PAR1" at the end.
    if (length < 12) {
      throw new InputException(
          name, "not a readable Parquet file (" + length + " bytes, too short to be one)");
    }
    byte[] tail = new byte[8];
    try (SeekableInputStream in = file.newStream()) {
      in.seek(length - tail.length);
      in.readFully(tail);
    }
    String magic = new String(tail, 4, 4, StandardCharsets.US_ASCII);
    if (!magic.equals("PAR1") && !magic.equals("PARE")) {
      throw new InputException(
          name, "not a readable Parquet file (it does not end in the Parquet magic bytes PAR1)");
    }
    long footer = ByteBuffer.wrap(tail, 0, 4).order(ByteOrder.LITTLE_ENDIAN).getInt() & 0xFFFFFFFFL;
    if (footer > length - 12) {
      throw new InputException(
          name,
          "not a readable Parquet file (its footer of "
              + footer
              + " bytes does not fit in its "
              + length
              + " bytes: truncated or damaged)");
    }
  }

  /**
   * Fails before anything is written where a column chunk uses a codec parquet-java cannot
   * decompress here (it would fail at that row group, naming a Hadoop class).
   */
  private static void refuseUnreadableCodecs(ParquetFileReader r, String name)
      throws InputException {
    List<BlockMetaData> groups = r.getRowGroups();
    for (int g = 0; g < groups.size(); g++) {
      for (var c : groups.get(g).getColumns()) {
        CompressionCodecName codec = c.getCodec();
        if (codec == CompressionCodecName.BROTLI || codec == CompressionCodecName.LZO) {
          throw new InputException(
              name,
              "column '"
                  + c.getPath().toDotString()
                  + "' (row group "
                  + g
                  + ") is compressed with "
                  + codec
                  + ", which Riffle cannot read; rewrite the file with ZSTD, SNAPPY, GZIP, LZ4_RAW"
                  + " or no compression");
        }
      }
    }
  }

  static String oneLine(Throwable e) {
    String m = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    return m.strip().replaceAll("\\s*[\\r\\n]+\\s*", "; ");
  }

  Schema arrowSchema() {
    return arrowSchema;
  }

  MessageType parquetSchema() {
    return parquetSchema;
  }

  long rowCount() {
    return reader.getRecordCount();
  }

  /** Compressed bytes of the row groups, for progress. */
  List<Long> rowGroupBytes() {
    List<Long> out = new ArrayList<>();
    for (BlockMetaData b : reader.getRowGroups()) {
      out.add(b.getCompressedSize());
    }
    return out;
  }

  /**
   * Decodes every row into batches of at most {@code batchRows} rows and about {@code batchBytes}
   * bytes.
   *
   * @param progress told the compressed bytes of each row group once it is decoded
   * @return the rows read
   */
  long read(
      BufferAllocator allocator,
      int batchRows,
      long batchBytes,
      BatchSink out,
      LongConsumer progress)
      throws IOException, InterruptedException {
    MessageColumnIO io = new ColumnIOFactory().getColumnIO(parquetSchema);
    long rows = 0;
    // The working vectors live in a child allocator, so that its count is the batch's size.
    try (BufferAllocator work = allocator.newChildAllocator(name, 0, Long.MAX_VALUE);
        VectorSchemaRoot root = VectorSchemaRoot.create(arrowSchema, work)) {
      root.allocateNew();
      GroupSinks.Record record = Sinks.record(parquetSchema, root);
      RecordMaterializer<Object> materializer =
          new RecordMaterializer<>() {
            @Override
            public Object getCurrentRecord() {
              return null;
            }

            @Override
            public GroupConverter getRootConverter() {
              return record;
            }
          };
      List<BlockMetaData> groups = reader.getRowGroups();
      for (int g = 0; ; g++) {
        PageReadStore pages = nextRowGroup(g);
        if (pages == null) {
          break;
        }
        try (pages) {
          RecordReader<Object> rr = io.getRecordReader(pages, materializer);
          long n = pages.getRowCount();
          for (long i = 0; i < n; i++) {
            try {
              rr.read();
            } catch (RuntimeException e) {
              throw new InputException(
                  name, "cannot decode row " + (rows + 1) + " (" + oneLine(e) + ")", e);
            }
            rows++;
            int c = record.count();
            if (c >= batchRows || ((c & 255) == 0 && work.getAllocatedMemory() >= batchBytes)) {
              emit(root, record, allocator, out);
            }
          }
        }
        progress.accept(groups.get(g).getCompressedSize());
      }
      if (record.count() > 0) {
        emit(root, record, allocator, out);
      }
    }
    return rows;
  }

  /**
   * Reads only the top-level string columns {@code columns}, handing every non-null value to the
   * sink of the same position, without decoding any other column: the first pass of {@link
   * Categoricals}. Consumes the reader's row groups, so a reader does this or {@link #read}.
   */
  void forEachValue(List<String> columns, List<Consumer<byte[]>> sinks) throws IOException {
    List<Type> fields = new ArrayList<>();
    for (String c : columns) {
      fields.add(parquetSchema.getType(c));
    }
    MessageType projection = new MessageType(parquetSchema.getName(), fields);
    reader.setRequestedSchema(projection);
    String createdBy = reader.getFileMetaData().getCreatedBy();
    GroupConverter ignore =
        new GroupConverter() {
          @Override
          public Converter getConverter(int field) {
            return new PrimitiveConverter() {};
          }

          @Override
          public void start() {}

          @Override
          public void end() {}
        };
    for (int g = 0; ; g++) {
      PageReadStore pages = nextRowGroup(g);
      if (pages == null) {
        return;
      }
      try (pages) {
        ColumnReadStoreImpl store = new ColumnReadStoreImpl(pages, ignore, projection, createdBy);
        List<ColumnDescriptor> descriptors = projection.getColumns();
        for (int c = 0; c < descriptors.size(); c++) {
          ColumnDescriptor d = descriptors.get(c);
          ColumnReader r = store.getColumnReader(d);
          int valid = d.getMaxDefinitionLevel();
          try {
            // A top-level string (never repeated) has one value or null per row.
            for (long i = pages.getRowCount(); i > 0; i--) {
              if (r.getCurrentDefinitionLevel() == valid) {
                sinks.get(c).accept(r.getBinary().getBytes());
              }
              r.consume();
            }
          } catch (RuntimeException e) {
            throw new InputException(
                name,
                "cannot decode column '"
                    + columns.get(c)
                    + "' in row group "
                    + g
                    + " ("
                    + oneLine(e)
                    + ")",
                e);
          }
        }
      }
    }
  }

  /** Row group {@code g} (the next), or null after the last; a damaged one is named. */
  private PageReadStore nextRowGroup(int g) throws InputException {
    try {
      return reader.readNextRowGroup();
    } catch (IOException | RuntimeException e) {
      throw new InputException(name, "cannot read row group " + g + " (" + oneLine(e) + ")", e);
    }
  }

  /** Hands the filled vectors' buffers over to a new batch and starts afresh. */
  private static void emit(
      VectorSchemaRoot root, GroupSinks.Record record, BufferAllocator allocator, BatchSink out)
      throws IOException, InterruptedException {
    root.setRowCount(record.count());
    List<FieldVector> moved = new ArrayList<>();
    for (FieldVector v : root.getFieldVectors()) {
      var pair = v.getTransferPair(allocator);
      pair.transfer();
      moved.add((FieldVector) pair.getTo());
    }
    VectorSchemaRoot batch = new VectorSchemaRoot(moved);
    batch.setRowCount(record.count());
    root.allocateNew();
    record.reset();
    out.accept(batch);
  }

  @Override
  public void close() throws IOException {
    reader.close();
  }
}

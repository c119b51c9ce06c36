package dev.riffle.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.convert.GroupRecordConverter;
import org.apache.parquet.filter2.columnindex.RowRanges;
import org.apache.parquet.filter2.compat.FilterCompat;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.api.WriteSupport;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.internal.column.columnindex.OffsetIndex;
import org.apache.parquet.io.ColumnIOFactory;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.io.MessageColumnIO;
import org.apache.parquet.io.RecordReader;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.RecordConsumer;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;

/**
 * Parquet-MR 1.18.1. Variants: {@code parquet} (ParquetWriter defaults: 1 MiB pages, dictionary, no
 * compression, 128 MiB row groups, page index), {@code parquet-tuned} (the Lance paper's random
 * access settings: 8 KiB pages checked every row, no dictionary, no compression, page index) and
 * {@code parquet-zstd} (defaults + zstd, for file size). Takes go through the page index: for each
 * row group holding requested rows, {@code readFilteredRowGroup} with single-row ranges, then the
 * stock record reader and example {@link Group} materializer; metadata and page indexes stay cached
 * in the per-thread {@link ParquetFileReader}. FixedSizeList is written as a LIST, as arrow-rs
 * does.
 */
final class ParquetPeer implements Peer {
  private final String type;
  private final Path file;
  private final String variant;
  private final MessageType schema;

  ParquetPeer(String type, Path file, String variant) {
    this.type = type;
    this.file = file;
    this.variant = variant;
    this.schema = schema(type);
  }

  static MessageType schema(String type) {
    List<String> kinds = Types.kinds(type);
    List<org.apache.arrow.vector.types.pojo.Field> fields = Types.schema(type).getFields();
    StringBuilder m = new StringBuilder("message m { ");
    for (int f = 0; f < kinds.size(); f++) {
      m.append(field(kinds.get(f), fields.get(f).getName())).append(' ');
    }
    return MessageTypeParser.parseMessageType(m.append('}').toString());
  }

  /** The Parquet field of a column of value kind {@code kind} (see {@link Fingerprint}). */
  private static String field(String kind, String name) {
    switch (kind) {
      case "u64":
        return "optional int64 " + name + " (INTEGER(64,false));";
      case "str16":
        return "required binary " + name + " (STRING);";
      case "bin20k":
        return "required binary " + name + ";";
      case "i32":
        return "required int32 " + name + ";";
      case "list_u64":
        return list(name, "required int64 element (INTEGER(64,false));");
      case "list_str":
        return list(name, "required binary element (STRING);");
      case "list_i32":
        return list(name, "required int32 element;");
      case "list_f32":
      case "vec768":
        return list(name, "required float element;");
      case "list_vec":
        return list(name, list("element", "required float element;"));
      case "list_bin":
        return list(name, "required binary element;");
      default:
        throw new IllegalArgumentException(kind);
    }
  }

  private static String list(String name, String element) {
    return "required group " + name + " (LIST) { repeated group list { " + element + " } }";
  }

  @Override
  public String format() {
    return variant;
  }

  @Override
  public Path file() {
    return file;
  }

  // ---------------------------------------------------------------------------------- writing

  /** Writes rows of Arrow batches; {@link #write} sets the batch. */
  static final class Writer implements AutoCloseable {
    private final ArrowWriteSupport support;
    private final ParquetWriter<Integer> writer;

    Writer(String type, Path file, String variant) throws IOException {
      support = new ArrowWriteSupport(type, schema(type));
      Builder b = new Builder(new LocalOutputFile(file), support).withConf(new Configuration());
      b.withWriteMode(org.apache.parquet.hadoop.ParquetFileWriter.Mode.OVERWRITE);
      switch (variant) {
        case "parquet":
          break;
        case "parquet-zstd":
          b.withCompressionCodec(CompressionCodecName.ZSTD);
          break;
        case "parquet-tuned":
          b.withPageSize(8192)
              .withDictionaryEncoding(false)
              .withCompressionCodec(CompressionCodecName.UNCOMPRESSED)
              .withMinRowCountForPageSizeCheck(1)
              .withMaxRowCountForPageSizeCheck(1)
              .withPageWriteChecksumEnabled(false);
          break;
        default:
          throw new IllegalArgumentException(variant);
      }
      writer = b.build();
    }

    void write(VectorSchemaRoot root, int count) throws IOException {
      support.root = root;
      for (int i = 0; i < count; i++) {
        writer.write(i);
      }
    }

    @Override
    public void close() throws IOException {
      writer.close();
    }
  }

  private static final class Builder extends ParquetWriter.Builder<Integer, Builder> {
    private final ArrowWriteSupport support;

    Builder(LocalOutputFile file, ArrowWriteSupport support) {
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
    protected WriteSupport<Integer> getWriteSupport(Configuration conf) {
      return support;
    }
  }

  /** Streams row i of an Arrow vector into Parquet's record consumer (no Group objects). */
  private static final class ArrowWriteSupport extends WriteSupport<Integer> {
    private final List<String> kinds;
    private final MessageType schema;
    private RecordConsumer out;
    VectorSchemaRoot root;

    ArrowWriteSupport(String type, MessageType schema) {
      this.kinds = Types.kinds(type);
      this.schema = schema;
    }

    @Override
    // Parquet (or Spark) still calls this override; its replacement is not in the version we use
    @SuppressWarnings("deprecation")
    public WriteContext init(Configuration configuration) {
      return new WriteContext(schema, new HashMap<>());
    }

    @Override
    public void prepareForWrite(RecordConsumer recordConsumer) {
      out = recordConsumer;
    }

    @Override
    public void write(Integer row) {
      out.startMessage();
      for (int f = 0; f < kinds.size(); f++) {
        FieldVector vector = root.getVector(f);
        if (!vector.isNull(row)) {
          String name = schema.getFieldName(f);
          out.startField(name, f);
          value(kinds.get(f), vector, row);
          out.endField(name, f);
        }
      }
      out.endMessage();
    }

    private void value(String t, FieldVector v, int i) {
      switch (t) {
        case "u64":
          out.addLong(((UInt8Vector) v).get(i));
          return;
        case "str16":
        case "bin20k":
        case "str":
        case "bin":
          out.addBinary(Binary.fromConstantByteArray(((BaseVariableWidthVector) v).get(i)));
          return;
        case "i32":
          out.addInteger(((IntVector) v).get(i));
          return;
        case "float":
          out.addFloat(((Float4Vector) v).get(i));
          return;
        case "vec768":
          {
            FixedSizeListVector f = (FixedSizeListVector) v;
            Float4Vector d = (Float4Vector) f.getDataVector();
            int m = f.getListSize();
            out.startGroup();
            out.startField("list", 0);
            for (int k = 0; k < m; k++) {
              out.startGroup();
              out.startField("element", 0);
              out.addFloat(d.get(i * m + k));
              out.endField("element", 0);
              out.endGroup();
            }
            out.endField("list", 0);
            out.endGroup();
            return;
          }
        default:
          {
            ListVector l = (ListVector) v;
            int s = l.getElementStartIndex(i);
            int e = l.getElementEndIndex(i);
            String item = Fingerprint.itemKind(t);
            out.startGroup();
            if (e > s) {
              out.startField("list", 0);
              for (int k = s; k < e; k++) {
                out.startGroup();
                out.startField("element", 0);
                value(item, l.getDataVector(), k);
                out.endField("element", 0);
                out.endGroup();
              }
              out.endField("list", 0);
            }
            out.endGroup();
          }
      }
    }
  }

  // ---------------------------------------------------------------------------------- reading

  private ParquetFileReader open() throws IOException {
    ParquetReadOptions options =
        ParquetReadOptions.builder(new PlainParquetConfiguration()).build();
    return ParquetFileReader.open(new LocalInputFile(file), options);
  }

  @Override
  public Taker taker() throws IOException {
    ParquetFileReader reader = open();
    List<BlockMetaData> groups = reader.getRowGroups();
    long[] firstRow = new long[groups.size() + 1];
    long[][] pageFirstRow = new long[groups.size()][];
    for (int g = 0; g < groups.size(); g++) {
      firstRow[g + 1] = firstRow[g] + groups.get(g).getRowCount();
      // Load and cache the page index (the "warm search cache" of the paper's protocol).
      reader.getColumnIndexStore(g);
      // Page starts of every column together: rows between two of them share a page in each.
      java.util.TreeSet<Long> starts = new java.util.TreeSet<>();
      for (var column : groups.get(g).getColumns()) {
        OffsetIndex oi = reader.readOffsetIndex(column);
        for (int k = 0; k < oi.getPageCount(); k++) {
          starts.add(oi.getFirstRowIndex(k));
        }
      }
      starts.add(groups.get(g).getRowCount());
      pageFirstRow[g] = starts.stream().mapToLong(Long::longValue).toArray();
    }
    MessageColumnIO io = new ColumnIOFactory().getColumnIO(schema);
    return new Taker() {
      @Override
      public long[] take(long[] rows, boolean digests) throws IOException {
        long[] sorted = rows.clone();
        Arrays.sort(sorted);
        int u = 0;
        for (int i = 0; i < sorted.length; i++) {
          if (u == 0 || sorted[i] != sorted[u - 1]) {
            sorted[u++] = sorted[i];
          }
        }
        long[] found = new long[u];
        int at = 0;
        while (at < u) {
          int g = Arrays.binarySearch(firstRow, sorted[at]);
          g = g >= 0 ? g : -g - 2;
          // One call per page (of every column): parquet-mr 1.18.1 returns wrong rows for
          // repeated columns when one filtered read skips pages between selected rows (seen in
          // CompareTest).
          long rel = sorted[at] - firstRow[g];
          int page = Arrays.binarySearch(pageFirstRow[g], rel);
          page = page >= 0 ? page : -page - 2;
          long pageEnd = firstRow[g] + pageFirstRow[g][page + 1];
          RowRanges.Builder ranges = RowRanges.builder();
          int from = at;
          while (at < u && sorted[at] < pageEnd) {
            ranges.addSelectedRow(sorted[at] - firstRow[g]);
            at++;
          }
          PageReadStore pages = reader.readFilteredRowGroup(g, ranges.build());
          RecordReader<Group> rr =
              io.getRecordReader(pages, new GroupRecordConverter(schema), FilterCompat.NOOP);
          long n = pages.getRowCount();
          if (n != at - from) {
            throw new IOException("parquet returned " + n + " rows for " + (at - from));
          }
          for (int k = from; k < at; k++) {
            Group row = rr.read();
            found[k] = digests ? Fingerprint.of(type, row) : 0;
          }
        }
        if (!digests) {
          return null;
        }
        long[] out = new long[rows.length];
        for (int i = 0; i < rows.length; i++) {
          out[i] = found[Arrays.binarySearch(sorted, 0, u, rows[i])];
        }
        return out;
      }

      @Override
      public void close() throws IOException {
        reader.close();
      }
    };
  }

  @Override
  public long scan(String column) throws IOException {
    long n = 0;
    MessageType read = column == null ? schema : new MessageType("m", schema.getType(column));
    try (ParquetFileReader reader = open()) {
      reader.setRequestedSchema(read);
      MessageColumnIO io = new ColumnIOFactory().getColumnIO(read);
      PageReadStore pages;
      while ((pages = reader.readNextRowGroup()) != null) {
        RecordReader<Group> rr =
            io.getRecordReader(pages, new GroupRecordConverter(read), FilterCompat.NOOP);
        for (long k = 0; k < pages.getRowCount(); k++) {
          rr.read();
          n++;
        }
      }
    }
    return n;
  }

  static ParquetProperties.WriterVersion version() {
    return ParquetProperties.WriterVersion.PARQUET_1_0;
  }
}

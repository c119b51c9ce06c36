package dev.riffle.convert;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.storage.LocalStorage;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.ipc.ArrowWriter;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type;
import org.apache.parquet.schema.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Parquet → Riffle → Parquet, Arrow IPC → Riffle → Arrow IPC. */
class RoundTripTest {
  @TempDir Path dir;
  BufferAllocator allocator;

  @BeforeEach
  void open() {
    allocator = new RootAllocator();
  }

  @AfterEach
  void close() {
    allocator.close();
  }

  private void toRiffle(Path parquet, Path out) throws IOException {
    try (LocalStorage s = new LocalStorage(out)) {
      ParquetConverter.convert(
          List.of(SourceFile.local(parquet)), s, allocator, ConvertOptions.defaults());
    }
  }

  private ConvertResult exportParquet(Path dataset, Path target) throws IOException {
    try (LocalStorage s = new LocalStorage(dataset);
        Dataset d = Dataset.open(s, allocator)) {
      return Exporter.toParquet(
          d,
          OutputTarget.open(target.toString(), Map.of()),
          CompressionCodecName.ZSTD,
          allocator,
          n -> {});
    }
  }

  private List<List<Object>> read(Path dataset) throws IOException {
    try (LocalStorage s = new LocalStorage(dataset)) {
      return DatasetRows.read(s, allocator);
    }
  }

  @Test
  void parquetRoundTripKeepsValuesNullsAndTypes() throws IOException {
    Path src = dir.resolve("all.parquet");
    List<List<Object>> expected =
        ParquetFixtures.writeAllTypes(src, 3000, 7, CompressionCodecName.SNAPPY, 128 << 10);
    toRiffle(src, dir.resolve("d1"));
    ConvertResult res = exportParquet(dir.resolve("d1"), dir.resolve("back.parquet"));
    assertThat(res.rows()).isEqualTo(3000);
    assertThat(res.bytesOut()).isEqualTo(Files.size(dir.resolve("back.parquet")));
    MessageType back;
    try (ParquetFileReader r =
        ParquetFileReader.open(new LocalInputFile(dir.resolve("back.parquet")))) {
      back = r.getFileMetaData().getSchema();
    }
    // Every type comes back as it was, but INTERVAL: parquet-java writes its annotation with the
    // logical type UNKNOWN, which DuckDB (and the Parquet spec) reads as "every value null", so the
    // export keeps its 12 bytes unannotated (DuckDbExportTest).
    List<Type> want = new ArrayList<>();
    for (Type t : ParquetFixtures.ALL_TYPES.getFields()) {
      want.add(
          t.getName().equals("ivl")
              ? Types.optional(PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY).length(12).named("ivl")
              : t);
    }
    assertThat(back.getFields()).isEqualTo(want);
    toRiffle(dir.resolve("back.parquet"), dir.resolve("d2"));
    assertThat(read(dir.resolve("d2"))).isEqualTo(expected);
    assertThat(dir).isDirectoryNotContaining("glob:**/.back.parquet.tmp-*");
  }

  @Test
  void nestedParquetRoundTripKeepsValues() throws IOException {
    Path src = dir.resolve("nested.parquet");
    List<List<Object>> expected = ParquetFixtures.writeNested(src, 2000, 8, 64 << 10);
    toRiffle(src, dir.resolve("d1"));
    exportParquet(dir.resolve("d1"), dir.resolve("back.parquet"));
    toRiffle(dir.resolve("back.parquet"), dir.resolve("d2"));
    assertThat(read(dir.resolve("d2"))).isEqualTo(expected);
  }

  @Test
  void exportRefusesAnExistingTarget() throws IOException {
    Path src = dir.resolve("n.parquet");
    ParquetFixtures.writeNested(src, 10, 1, 1 << 20);
    toRiffle(src, dir.resolve("d1"));
    Files.writeString(dir.resolve("taken.parquet"), "mine");
    assertThatThrownBy(() -> exportParquet(dir.resolve("d1"), dir.resolve("taken.parquet")))
        .isInstanceOf(java.nio.file.FileAlreadyExistsException.class);
    assertThat(Files.readString(dir.resolve("taken.parquet"))).isEqualTo("mine");
  }

  /** Writes an IPC file or stream with an int column and a dictionary-encoded string column. */
  private List<List<Object>> writeIpc(Path file, boolean fileFormat) throws IOException {
    DictionaryEncoding enc = new DictionaryEncoding(1, false, new ArrowType.Int(32, true));
    Schema schema =
        new Schema(
            List.of(
                Field.nullable("n", new ArrowType.Int(32, true)),
                new Field("label", new FieldType(true, new ArrowType.Int(32, true), enc), null)));
    List<List<Object>> expected = new ArrayList<>();
    String[] labels = {"cat", "dog", "emu"};
    try (VarCharVector dict = new VarCharVector("label", allocator);
        VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
        FileChannel ch =
            FileChannel.open(
                file,
                java.nio.file.StandardOpenOption.CREATE_NEW,
                java.nio.file.StandardOpenOption.WRITE)) {
      dict.allocateNew();
      for (int i = 0; i < labels.length; i++) {
        dict.setSafe(i, labels[i].getBytes(java.nio.charset.StandardCharsets.UTF_8));
      }
      dict.setValueCount(labels.length);
      DictionaryProvider.MapDictionaryProvider provider =
          new DictionaryProvider.MapDictionaryProvider();
      provider.put(new Dictionary(dict, enc));
      try (ArrowWriter w =
          fileFormat
              ? new ArrowFileWriter(root, provider, ch)
              : new ArrowStreamWriter(root, provider, ch)) {
        w.start();
        int row = 0;
        for (int b = 0; b < 3; b++) {
          IntVector n = (IntVector) root.getVector(0);
          IntVector l = (IntVector) root.getVector(1);
          n.allocateNew();
          l.allocateNew();
          int rows = 100 + b * 50;
          for (int i = 0; i < rows; i++, row++) {
            if (row % 11 == 0) {
              n.setNull(i);
            } else {
              n.set(i, row * 3);
            }
            if (row % 13 == 0) {
              l.setNull(i);
            } else {
              l.set(i, row % 3);
            }
            expected.add(
                java.util.Arrays.asList(
                    row % 11 == 0 ? null : (long) row * 3, row % 13 == 0 ? null : labels[row % 3]));
          }
          root.setRowCount(rows);
          w.writeBatch();
        }
        w.end();
      }
    }
    return expected;
  }

  @Test
  void arrowFileAndStreamRoundTrip() throws IOException {
    for (boolean fileFormat : new boolean[] {true, false}) {
      Path ipc = dir.resolve(fileFormat ? "in.arrow" : "in.arrows");
      List<List<Object>> expected = writeIpc(ipc, fileFormat);
      Path ds = dir.resolve("ds-" + fileFormat);
      try (LocalStorage s = new LocalStorage(ds)) {
        ConvertResult res =
            ArrowIpcConverter.convert(
                SourceFile.local(ipc), s, allocator, ConvertOptions.defaults());
        assertThat(res.rows()).isEqualTo(expected.size());
        assertThat(res.manifest().provenance().tool()).isEqualTo("riffle convert arrow");
      }
      Path back = dir.resolve("back-" + fileFormat + ".arrow");
      try (LocalStorage s = new LocalStorage(ds);
          Dataset d = Dataset.open(s, allocator)) {
        assertThat(d.arrowSchema().findField("label").getDictionary()).isNotNull();
        Exporter.toArrow(
            d,
            OutputTarget.open(back.toString(), Map.of()),
            Exporter.ArrowFormat.FILE,
            allocator,
            n -> {});
      }
      List<List<Object>> rows = new ArrayList<>();
      try (FileChannel ch = FileChannel.open(back);
          ArrowFileReader r = new ArrowFileReader(ch, allocator)) {
        List<List<Object>> coded = new ArrayList<>();
        while (r.loadNextBatch()) {
          coded.addAll(ArrowValues.rows(r.getVectorSchemaRoot()));
        }
        // The file's dictionaries are read with its first batch.
        Field label = r.getVectorSchemaRoot().getSchema().findField("label");
        assertThat(label.getDictionary()).as("label stays a dictionary").isNotNull();
        Dictionary labels = r.getDictionaryVectors().get(label.getDictionary().getId());
        List<Object> categories = new ArrayList<>();
        for (int i = 0; i < labels.getVector().getValueCount(); i++) {
          categories.add(ArrowValues.get(labels.getVector(), i));
        }
        assertThat(categories).as("the categories, in order").containsExactly("cat", "dog", "emu");
        for (List<Object> row : coded) {
          Long code = (Long) row.get(1);
          row.set(1, code == null ? null : categories.get(code.intValue()));
          rows.add(row);
        }
      }
      assertThat(rows).isEqualTo(expected);
    }
  }

  @Test
  void notArrowFailsNamingTheFile() throws IOException {
    Path bad = dir.resolve("bad.arrow");
    Files.writeString(bad, "definitely not arrow");
    try (LocalStorage s = new LocalStorage(dir.resolve("out"))) {
      assertThatThrownBy(
              () ->
                  ArrowIpcConverter.convert(
                      SourceFile.local(bad), s, allocator, ConvertOptions.defaults()))
          .isInstanceOf(InputException.class)
          .hasMessageStartingWith(bad + ": not an Arrow IPC file or stream");
    }
    assertThat(dir.resolve("out")).doesNotExist();
  }
}

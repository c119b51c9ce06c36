package dev.riffle.format.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.riffle.format.read.FileReader;
import dev.riffle.format.schema.UnsupportedTypeException;
import dev.riffle.format.testing.RandomData;
import dev.riffle.format.testing.TypeCase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.IntervalUnit;
import org.apache.arrow.vector.types.UnionMode;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The writer's contract: clear rejections, atomic publication, determinism. */
class FileWriterTest {
  @TempDir Path dir;
  private BufferAllocator allocator;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
  }

  @AfterEach
  void tearDown() {
    allocator.close();
  }

  @Test
  void unsupportedTypesAreRejectedNamingFieldAndType() {
    Field union =
        new Field(
            "u",
            org.apache.arrow.vector.types.pojo.FieldType.nullable(
                new ArrowType.Union(UnionMode.Sparse, new int[] {0})),
            List.of(TypeCase.f("a", new ArrowType.Int(32, true))));
    Field nested =
        TypeCase.f(
            "outer",
            ArrowType.Struct.INSTANCE,
            TypeCase.f("iv", new ArrowType.Interval(IntervalUnit.DAY_TIME)));
    Field emptyStruct = TypeCase.f("s", ArrowType.Struct.INSTANCE);
    Field badTime =
        TypeCase.f("t", new ArrowType.Time(org.apache.arrow.vector.types.TimeUnit.SECOND, 64));
    for (Field f : List.of(union, nested, emptyStruct, badTime)) {
      Path target = dir.resolve("bad.riffle");
      assertThatThrownBy(
              () -> FileWriter.create(target, new Schema(List.of(f)), WriterOptions.defaults()))
          .isInstanceOf(UnsupportedTypeException.class)
          .hasMessageContaining("'" + (f == nested ? "outer.iv" : f.getName()) + "'");
      assertThat(dir).isEmptyDirectory();
    }
  }

  @Test
  void badGroupsAreRejected() {
    Schema s =
        new Schema(
            List.of(
                TypeCase.f("a", new ArrowType.Int(32, true)),
                TypeCase.f("b", new ArrowType.Int(32, true))));
    assertThatThrownBy(
            () ->
                FileWriter.create(
                    dir.resolve("x"), s, WriterOptions.defaults().withColumnGroup("a", "zzz")))
        .hasMessageContaining("'zzz'");
    assertThatThrownBy(
            () ->
                FileWriter.create(
                    dir.resolve("x"),
                    s,
                    WriterOptions.defaults().withColumnGroup("a", "b").withColumnGroup("b")))
        .hasMessageContaining("more than one column group");
    assertThat(dir).isEmptyDirectory();
  }

  @Test
  void dictionaryFieldsCannotBeGrouped() {
    var enc =
        new org.apache.arrow.vector.types.pojo.DictionaryEncoding(
            1, false, new ArrowType.Int(8, true));
    Field cat =
        new Field(
            "cat",
            new org.apache.arrow.vector.types.pojo.FieldType(true, new ArrowType.Int(8, true), enc),
            null);
    Schema s = new Schema(List.of(cat, TypeCase.f("b", new ArrowType.Int(32, true))));
    try (var d = RandomData.dictionary("cat", 1, allocator)) {
      var provider =
          new org.apache.arrow.vector.dictionary.DictionaryProvider.MapDictionaryProvider(
              new org.apache.arrow.vector.dictionary.Dictionary(d, enc));
      assertThatThrownBy(
              () ->
                  FileWriter.create(
                      dir.resolve("x"),
                      s,
                      provider,
                      WriterOptions.defaults().withColumnGroup("cat", "b")))
          .hasMessageContaining("'cat'")
          .hasMessageContaining("column group");
    }
  }

  @Test
  void nullsInANonNullableFieldAreRejected() throws Exception {
    Schema s = new Schema(List.of(TypeCase.notNull("x", new ArrowType.Int(32, true))));
    try (FileWriter w = FileWriter.create(dir.resolve("t.riffle"), s, WriterOptions.defaults());
        VectorSchemaRoot root = VectorSchemaRoot.create(s, allocator)) {
      root.allocateNew();
      ((IntVector) root.getVector(0)).setNull(3);
      root.setRowCount(5);
      assertThatThrownBy(() -> w.write(root)).hasMessageContaining("'x' is not nullable");
    }
    assertThat(dir).isEmptyDirectory();
  }

  @Test
  void nothingAppearsUntilFinishAndAbortLeavesNothing() throws Exception {
    Schema s = new Schema(List.of(TypeCase.f("x", new ArrowType.Int(32, true))));
    Path target = dir.resolve("t.riffle");
    try (VectorSchemaRoot root = RandomData.generate(s, 100_000, 1, 0.1, allocator)) {
      try (FileWriter w = FileWriter.create(target, s, WriterOptions.defaults())) {
        w.write(root);
        assertThat(target).doesNotExist();
      }
      // Closed without finish: the temporary file is gone too.
      try (Stream<Path> files = Files.list(dir)) {
        assertThat(files).isEmpty();
      }
      try (FileWriter w = FileWriter.create(target, s, WriterOptions.defaults())) {
        w.write(root);
        w.finish();
      }
      try (Stream<Path> files = Files.list(dir)) {
        assertThat(files).containsExactly(target);
      }
    }
  }

  @Test
  void aBatchWithAnotherSchemaIsRejected() throws Exception {
    Schema s = new Schema(List.of(TypeCase.f("x", new ArrowType.Int(32, true))));
    Schema other = new Schema(List.of(TypeCase.f("y", new ArrowType.Int(32, true))));
    try (FileWriter w = FileWriter.create(dir.resolve("t.riffle"), s, WriterOptions.defaults());
        VectorSchemaRoot root = RandomData.generate(other, 10, 1, 0, allocator)) {
      assertThatThrownBy(() -> w.write(root))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("y");
    }
  }

  @Test
  void sameRowsGiveSameBytesWhateverTheBatching() throws Exception {
    Schema s =
        new Schema(
            List.of(
                TypeCase.f("x", new ArrowType.Int(32, true)),
                TypeCase.f("s", ArrowType.Utf8.INSTANCE),
                TypeCase.f("long_s", ArrowType.Utf8.INSTANCE)));
    WriterOptions o = WriterOptions.defaults().withPageBytes(8192);
    try (VectorSchemaRoot root = RandomData.generate(s, 3000, 5, 0.1, allocator)) {
      Path one = dir.resolve("one.riffle");
      try (FileWriter w = FileWriter.create(one, s, o)) {
        w.write(root);
        w.finish();
      }
      Path many = dir.resolve("many.riffle");
      try (FileWriter w = FileWriter.create(many, s, o)) {
        for (int at = 0; at < 3000; at += 77) {
          try (VectorSchemaRoot slice = root.slice(at, Math.min(77, 3000 - at))) {
            w.write(slice);
          }
        }
        w.finish();
      }
      assertThat(Files.readAllBytes(many)).isEqualTo(Files.readAllBytes(one));
      try (FileReader r = FileReader.open(one, allocator)) {
        assertThat(r.rowCount()).isEqualTo(3000);
        assertThat(r.pages(0)).hasSizeGreaterThan(1);
      }
    }
  }

  @Test
  void writerMemoryIsBoundedByPages() throws Exception {
    // 200k rows of a 4-byte column in 64 KiB pages: many pages, none larger than a page.
    Schema s = new Schema(List.of(TypeCase.f("x", new ArrowType.Int(32, true))));
    Path target = dir.resolve("t.riffle");
    WriterOptions o = WriterOptions.defaults().withPageBytes(64 * 1024);
    try (FileWriter w = FileWriter.create(target, s, o);
        VectorSchemaRoot root = VectorSchemaRoot.create(s, allocator)) {
      for (int b = 0; b < 20; b++) {
        root.allocateNew();
        IntVector v = (IntVector) root.getVector(0);
        for (int i = 0; i < 10_000; i++) {
          v.setSafe(i, i * 31 + b);
        }
        root.setRowCount(10_000);
        w.write(root);
      }
      w.finish();
    }
    try (FileReader r = FileReader.open(target, allocator)) {
      assertThat(r.pages(0))
          .allSatisfy(p -> assertThat(p.byteLength()).isLessThanOrEqualTo(64 * 1024 + 4096));
    }
  }

  @Test
  void aTakeLargerThanTheReadArenaReadsIntoItsOwnBuffers() throws Exception {
    // 24 rows of 4 MiB: taking them all reads 96 MiB, more than a thread's read arena (64 MiB),
    // so the reads go to buffers of their own; the rows must come back the same.
    int rows = 24;
    int width = 4 << 20;
    Schema schema = new Schema(List.of(TypeCase.f("blob", ArrowType.Binary.INSTANCE)));
    Path file = dir.resolve("large.riffle");
    long[] order = new long[rows];
    try (VectorSchemaRoot data = VectorSchemaRoot.create(schema, allocator)) {
      org.apache.arrow.vector.VarBinaryVector blob =
          (org.apache.arrow.vector.VarBinaryVector) data.getVector("blob");
      blob.allocateNew((long) rows * width, rows);
      java.util.SplittableRandom random = new java.util.SplittableRandom(rows);
      byte[] value = new byte[width];
      for (int i = 0; i < rows; i++) {
        random.nextBytes(value);
        blob.setSafe(i, value);
        order[i] = rows - 1 - i;
      }
      data.setRowCount(rows);
      try (FileWriter w = FileWriter.create(file, schema, WriterOptions.defaults())) {
        w.write(data);
        w.finish();
      }
      try (FileReader reader = FileReader.open(file, allocator);
          VectorSchemaRoot got = reader.take(order, null)) {
        assertThat(reader.stats().bytesRead()).isGreaterThan(64L << 20);
        org.apache.arrow.vector.VarBinaryVector back =
            (org.apache.arrow.vector.VarBinaryVector) got.getVector("blob");
        for (int j = 0; j < rows; j++) {
          assertThat(back.get(j)).as("row " + order[j]).isEqualTo(blob.get((int) order[j]));
        }
      }
    }
  }
}

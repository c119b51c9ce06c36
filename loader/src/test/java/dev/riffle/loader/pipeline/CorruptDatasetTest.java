package dev.riffle.loader.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import dev.riffle.datagen.AtomsData;
import dev.riffle.datagen.Batches;
import dev.riffle.datagen.CellsData;
import dev.riffle.datagen.SparseData;
import dev.riffle.datagen.SyntheticData;
import dev.riffle.datagen.VectorsData;
import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.DatasetView;
import dev.riffle.dataset.storage.LocalStorage;
import dev.riffle.dataset.write.DatasetOptions;
import dev.riffle.dataset.write.DatasetWriter;
import dev.riffle.format.CorruptFileException;
import dev.riffle.format.read.FileReader;
import dev.riffle.format.read.PageInfo;
import dev.riffle.format.testing.Seed;
import dev.riffle.format.testing.SeedExtension;
import dev.riffle.format.write.WriterOptions;
import dev.riffle.loader.plan.BlockShuffle;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The corruption campaign at the level training uses (issue #15): datasets of every wide data kind
 * (counts rows in packed records, float vectors in fixed slots, sparse rows of random floats,
 * atoms), one byte flipped at a seeded random offset inside a data page of one of their files, then
 * read by a take of every row, a dataset scan, and a whole loader epoch. Each read must either fail
 * with a {@link CorruptFileException} (somewhere in its causes) or return exactly what the
 * undamaged dataset returns; a read that returns other values is silently wrong data, the worst
 * defect this project can have.
 */
@ExtendWith(SeedExtension.class)
class CorruptDatasetTest {
  private static final int ROWS = 240;
  private static final int FLIPS = 12;

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

  private static SyntheticData data(String kind, BufferAllocator a) {
    return switch (kind) {
      case "cells" -> new CellsData(a, CellsData.MIN_GENES * 20);
      case "vectors" -> new VectorsData();
      case "sparse" -> new SparseData(a);
      default -> new AtomsData();
    };
  }

  /** Writes ROWS rows of a kind into two or more files, with 16 KiB pages (several per file). */
  private Path write(String kind, long seed) throws IOException {
    Path root = dir.resolve(kind);
    try (SyntheticData data = data(kind, allocator);
        DatasetWriter w =
            DatasetWriter.create(
                new LocalStorage(root),
                data.schema(),
                data.dictionaries(),
                DatasetOptions.defaults()
                    .withTargetFileRows(ROWS / 2)
                    .withFileOptions(
                        data.options(WriterOptions.defaults().withPageBytes(16 * 1024))))) {
      Batches.generate(
          data,
          allocator,
          ROWS,
          seed,
          64,
          b -> {
            w.write(b);
            return true;
          },
          null);
      w.publish();
    }
    return root;
  }

  /** Everything the three reads return, as text: take of every row, scan, a loader epoch. */
  private List<String> readAll(Path root) throws IOException {
    List<String> out = new ArrayList<>();
    try (Dataset d = Dataset.open(new LocalStorage(root), allocator)) {
      DatasetView all = d.all();
      long[] rows = new long[(int) all.rowCount()];
      for (int i = 0; i < rows.length; i++) {
        rows[i] = (i * 97L) % rows.length;
      }
      try (VectorSchemaRoot t = all.take(rows, null)) {
        out.add("take " + text(t));
      }
      DatasetView.Cursor c = all.scan(null, 50);
      VectorSchemaRoot b;
      while ((b = c.next()) != null) {
        try (VectorSchemaRoot batch = b) {
          out.add("scan " + text(batch));
        }
      }
      LoaderOptions o = LoaderOptions.of(new BlockShuffle(4, 4, 0, false), 16, 3);
      try (Loader loader = Loader.open(all, o, allocator)) {
        VectorSchemaRoot batch;
        while ((batch = loader.next()) != null) {
          try (VectorSchemaRoot x = batch) {
            out.add("load " + text(x));
          }
        }
      }
    }
    return out;
  }

  private static String text(VectorSchemaRoot r) {
    StringBuilder s = new StringBuilder();
    for (int i = 0; i < r.getRowCount(); i++) {
      for (FieldVector v : r.getFieldVectors()) {
        Object o = v.getObject(i);
        s.append(o == null ? "null" : o.toString()).append('|');
      }
      s.append('\n');
    }
    return s.toString();
  }

  private static boolean corrupt(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof CorruptFileException) {
        return true;
      }
    }
    return false;
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"cells", "vectors", "sparse", "atoms"})
  void aFlippedByteIsAnErrorOrChangesNothing(String kind, @Seed long seed) throws Exception {
    Path original = write(kind, seed);
    List<String> expected = readAll(original);
    List<Path> files;
    try (Stream<Path> s = Files.list(original.resolve("data"))) {
      files = s.sorted().toList();
    }
    assertThat(files).as("data files").hasSizeGreaterThanOrEqualTo(2);
    SplittableRandom r = new SplittableRandom(seed);
    int errors = 0;
    for (int m = 0; m < FLIPS; m++) {
      Path copy = dir.resolve(kind + "-flip-" + m);
      copyTree(original, copy);
      Path file = copy.resolve("data").resolve(files.get(r.nextInt(files.size())).getFileName());
      List<PageInfo> pages = new ArrayList<>();
      try (FileReader f = FileReader.open(file, allocator)) {
        for (int c = 0; c < f.schema().columns().size(); c++) {
          pages.addAll(f.pages(c));
        }
      }
      // Wide columns first: they are where takes used to go unchecked.
      pages.sort((a, b) -> Long.compare(b.byteLength(), a.byteLength()));
      PageInfo page = pages.get(r.nextInt(Math.min(3, pages.size())));
      long at = page.offset() + r.nextLong(page.byteLength());
      byte[] bytes = Files.readAllBytes(file);
      bytes[(int) at] ^= (byte) (1 + r.nextInt(255));
      Files.write(file, bytes);
      String what = kind + ": byte " + at + " of " + file.getFileName() + " flipped";
      try {
        List<String> got = readAll(copy);
        assertThat(got)
            .as(what + ": read without error, so it must equal the original")
            .isEqualTo(expected);
      } catch (IOException | RuntimeException e) {
        assertThat(corrupt(e)).as(what + ": failed with " + e).isTrue();
        errors++;
      }
    }
    // Every flip inside a page changes checksummed bytes: all of them must have been caught.
    assertThat(errors).as(kind + ": flips reported as corruption").isEqualTo(FLIPS);
  }

  private static void copyTree(Path from, Path to) throws IOException {
    try (Stream<Path> s = Files.walk(from)) {
      for (Path p : (Iterable<Path>) s::iterator) {
        Path t = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(t);
        } else {
          Files.copy(p, t);
        }
      }
    }
  }
}

package dev.riffle.djl;

import dev.riffle.datagen.Batches;
import dev.riffle.datagen.CellsData;
import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.DatasetView;
import dev.riffle.dataset.Manifest;
import dev.riffle.dataset.storage.LocalStorage;
import dev.riffle.dataset.write.DatasetOptions;
import dev.riffle.dataset.write.DatasetVersions;
import dev.riffle.dataset.write.DatasetWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Training data from the realistic {@code cells} generator ({@link CellsData}, what {@code riffle
 * generate cells} writes), in the row order a real atlas has, with a random train/test split.
 *
 * <p>The generator writes rows sorted by plate, with cell types mixed within each plate. Atlases
 * are often sorted by cell type as well (per-type sorts, per-type files concatenated): {@link
 * Order#CELL_TYPE} rewrites the rows in (cell type, plate) order, the order in which sequential
 * reading sees one type after another, the case that tells samplers apart.
 */
public final class CellsDatasets {
  private CellsDatasets() {}

  /** The row order of the written dataset. */
  public enum Order {
    /** The generator's: by plate, cell types mixed. */
    PLATE,
    /** By cell type, then plate. */
    CELL_TYPE
  }

  /** The split the model trains on and the one it is evaluated on. */
  public static final String TRAIN = "train";

  public static final String TEST = "test";

  /** Rows per batch written when sorting (a take of this many rows). */
  private static final int SORT_BATCH = 4096;

  /**
   * Writes {@code rows} generated cells of {@code genes} genes to a new dataset at {@code dir}, in
   * {@code order}, and publishes a version with the splits {@value #TRAIN} (each row with
   * probability {@code trainFraction}) and {@value #TEST} (the rest).
   *
   * @throws java.nio.file.FileAlreadyExistsException if a dataset is there already
   */
  public static void write(
      Path dir, long rows, int genes, long seed, Order order, double trainFraction)
      throws IOException {
    Path target = order == Order.PLATE ? dir : sibling(dir, ".unsorted");
    try (BufferAllocator allocator = new RootAllocator();
        CellsData data = new CellsData(allocator, genes)) {
      Map<String, String> metadata = new LinkedHashMap<>();
      metadata.put("kind", "cells");
      metadata.put("seed", Long.toString(seed));
      metadata.put("rows", Long.toString(rows));
      metadata.put("genes", Integer.toString(genes));
      metadata.put("order", order.name().toLowerCase(java.util.Locale.ROOT));
      DatasetOptions options =
          DatasetOptions.defaults()
              .withFileOptions(data.options(dev.riffle.format.write.WriterOptions.defaults()))
              .withMetadata(metadata)
              .withProvenance(new Manifest.Provenance("riffle-djl CellsDatasets", null, List.of()));
      LocalStorage storage = new LocalStorage(target);
      try (DatasetWriter w =
          DatasetWriter.create(storage, data.schema(), data.dictionaries(), options)) {
        Batches.generate(
            data,
            allocator,
            rows,
            seed,
            data.batchRows(),
            b -> {
              w.write(b);
              return true;
            },
            null);
        w.publish();
      }
      if (order == Order.CELL_TYPE) {
        sortByCellType(target, dir, options, allocator);
        deleteTree(target);
      }
    }
    DatasetVersions.randomSplit(new LocalStorage(dir), TRAIN, trainFraction, seed, TEST);
  }

  private static Path sibling(Path dir, String suffix) {
    Path abs = dir.toAbsolutePath();
    return abs.resolveSibling(abs.getFileName() + suffix);
  }

  /** Rewrites {@code from} into {@code to} with its rows in (cell type, row) order. */
  private static void sortByCellType(
      Path from, Path to, DatasetOptions options, BufferAllocator allocator) throws IOException {
    try (Dataset d = Dataset.open(new LocalStorage(from), allocator)) {
      DatasetView all = d.all();
      int n = Math.toIntExact(all.rowCount());
      int[] type = new int[n];
      int at = 0;
      DatasetView.Cursor cursor = all.scan(List.of("cell_type"), 1 << 16);
      while (true) {
        try (VectorSchemaRoot b = cursor.next()) {
          if (b == null) {
            break;
          }
          BaseIntVector v = (BaseIntVector) b.getVector("cell_type");
          for (int i = 0; i < b.getRowCount(); i++) {
            type[at++] = (int) v.getValueAsLong(i);
          }
        }
      }
      // Stable: within a type the rows keep the generator's plate order.
      long[] order =
          IntStream.range(0, n)
              .boxed()
              .sorted(Comparator.comparingInt(r -> type[r]))
              .mapToLong(Integer::longValue)
              .toArray();
      try (DatasetWriter w =
          DatasetWriter.create(new LocalStorage(to), d.arrowSchema(), d.dictionaries(), options)) {
        for (int s = 0; s < n; s += SORT_BATCH) {
          long[] chunk = java.util.Arrays.copyOfRange(order, s, Math.min(n, s + SORT_BATCH));
          try (VectorSchemaRoot b = d.take(chunk, null)) {
            w.write(b);
          }
        }
        w.publish();
      }
    }
  }

  private static void deleteTree(Path p) throws IOException {
    try (Stream<Path> all = Files.walk(p)) {
      for (Path q : all.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(q);
      }
    }
  }

  /**
   * Whether {@code dir} holds a dataset this class wrote with these parameters (its latest
   * version's metadata says so, and it has the splits).
   */
  public static boolean isGenerated(Path dir, long rows, int genes, long seed, Order order)
      throws IOException {
    LocalStorage storage = new LocalStorage(dir);
    if (!Files.isDirectory(dir) || Dataset.versions(storage).isEmpty()) {
      return false;
    }
    Manifest m = Dataset.readManifest(storage, Dataset.latestVersion(storage));
    Map<String, String> md = m.metadata();
    return "cells".equals(md.get("kind"))
        && Long.toString(rows).equals(md.get("rows"))
        && Integer.toString(genes).equals(md.get("genes"))
        && Long.toString(seed).equals(md.get("seed"))
        && order.name().toLowerCase(java.util.Locale.ROOT).equals(md.get("order"))
        && m.splits().containsKey(TRAIN)
        && m.splits().containsKey(TEST);
  }

  /**
   * The width of the counts matrix of a dataset: {@code genes} in its metadata ({@code riffle
   * generate cells}), or the second number of {@code anndata.shape} (a converted {@code .h5ad}).
   *
   * @return the width, or -1 if the metadata says neither
   */
  public static int genes(Dataset d) {
    Map<String, String> m = d.manifest().metadata();
    try {
      if (m.containsKey("genes")) {
        return Integer.parseInt(m.get("genes").trim());
      }
      String shape = m.get("anndata.shape");
      if (shape != null) {
        String[] parts = shape.replace("[", "").replace("]", "").split(",");
        if (parts.length == 2) {
          return Integer.parseInt(parts[1].trim());
        }
      }
    } catch (NumberFormatException e) {
      return -1;
    }
    return -1;
  }
}

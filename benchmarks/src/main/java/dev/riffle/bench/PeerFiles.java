package dev.riffle.bench;

import dev.riffle.datagen.SyntheticData;
import dev.riffle.format.write.FileWriter;
import dev.riffle.format.write.WriterOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/** Writes one {@link Types} type in every format from the same generated Arrow batches. */
final class PeerFiles {
  static final List<String> PARQUET_VARIANTS = List.of("parquet", "parquet-tuned", "parquet-zstd");

  private PeerFiles() {}

  static Path file(Path dir, String type, long rows, String format) {
    String ext =
        format.startsWith("parquet")
            ? ".parquet"
            : format.equals("arrow-ipc") ? ".arrow" : ".riffle";
    return dir.resolve(type + "-" + rows + "-" + format + ext);
  }

  /**
   * Generates {@code rows} rows of {@code type} (seeded) and writes them as Riffle, every Parquet
   * variant in {@code formats} and Arrow IPC, skipping files that already exist (same name = same
   * type, rows and seed). Riffle files are written with {@code riffleOptions}.
   */
  static void write(
      Path dir,
      String type,
      long rows,
      long seed,
      List<String> formats,
      WriterOptions riffleOptions,
      BufferAllocator allocator)
      throws IOException {
    Files.createDirectories(dir);
    List<String> missing = new ArrayList<>();
    for (String f : formats) {
      if (!Files.exists(file(dir, type, rows, f))) {
        missing.add(f);
      }
    }
    if (missing.isEmpty()) {
      return;
    }
    int batch = ArrowIpcPeer.batchRows(type);
    SplittableRandom rng = new SplittableRandom(seed * 31 + type.hashCode());
    List<AutoCloseable> open = new ArrayList<>();
    try (SyntheticData data = Types.data(type);
        VectorSchemaRoot root = VectorSchemaRoot.create(data.schema(), allocator)) {
      Schema schema = data.schema();
      FileWriter riffle = null;
      ArrowIpcPeer.Writer arrow = null;
      List<ParquetPeer.Writer> parquet = new ArrayList<>();
      List<Path> temps = new ArrayList<>();
      for (String f : missing) {
        Path target = file(dir, type, rows, f);
        if (f.equals("riffle")) {
          riffle = FileWriter.create(target, schema, data.options(riffleOptions));
          open.add(riffle);
        } else if (f.equals("arrow-ipc")) {
          Path tmp = target.resolveSibling(target.getFileName() + ".tmp");
          temps.add(tmp);
          arrow = new ArrowIpcPeer.Writer(tmp, root, type);
          open.add(arrow);
        } else if (PARQUET_VARIANTS.contains(f)) {
          Path tmp = target.resolveSibling(target.getFileName() + ".tmp");
          temps.add(tmp);
          ParquetPeer.Writer w = new ParquetPeer.Writer(type, tmp, f);
          parquet.add(w);
          open.add(w);
        }
      }
      for (long at = 0; at < rows; at += batch) {
        int n = (int) Math.min(batch, rows - at);
        // One root for every batch: the Arrow IPC writer is bound to it.
        root.allocateNew();
        data.fill(root, at, n, rows, rng);
        root.setRowCount(n);
        if (riffle != null) {
          riffle.write(root);
        }
        if (arrow != null) {
          arrow.writeBatch();
        }
        for (ParquetPeer.Writer w : parquet) {
          w.write(root, n);
        }
      }
      if (riffle != null) {
        riffle.finish();
      }
      for (int k = open.size() - 1; k >= 0; k--) {
        open.get(k).close();
      }
      open.clear();
      for (Path tmp : temps) {
        String name = tmp.getFileName().toString();
        Files.move(tmp, tmp.resolveSibling(name.substring(0, name.length() - 4)));
      }
    } catch (IOException | RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IOException(e);
    } finally {
      for (AutoCloseable c : open) {
        try {
          c.close();
        } catch (Exception ignored) {
          // already failing
        }
      }
    }
  }
}

package dev.riffle.writer;

import java.util.ArrayList;
import java.util.List;

/**
 * How a {@link FileWriter} lays out a file.
 *
 * @param pageBytes a column flushes a page once its buffered records reach this many bytes; it
 *     bounds writer memory at about twice this per column (default 1 MiB, the NVMe-friendly unit)
 * @param columnGroups lists of top-level fields to store row-major together, so that one read
 *     returns all of them for a row
 * @param zstdLevel zstd level for wide variable-size records, 0 to never compress (default 3)
 */
public record WriterOptions(int pageBytes, List<List<String>> columnGroups, int zstdLevel) {
  public static final int DEFAULT_PAGE_BYTES = 1 << 20;
  public static final int DEFAULT_ZSTD_LEVEL = 3;

  public WriterOptions {
    if (pageBytes < 4096) {
      throw new IllegalArgumentException("page size must be at least 4096 bytes, not " + pageBytes);
    }
    if (zstdLevel < 0 || zstdLevel > 19) {
      throw new IllegalArgumentException("zstd level must be 0 (off) to 19, not " + zstdLevel);
    }
    List<List<String>> copy = new ArrayList<>();
    for (List<String> g : columnGroups) {
      copy.add(List.copyOf(g));
    }
    columnGroups = List.copyOf(copy);
  }

  /** 1 MiB pages, no column groups, zstd level 3 for wide variable records. */
  public static WriterOptions defaults() {
    return new WriterOptions(DEFAULT_PAGE_BYTES, List.of(), DEFAULT_ZSTD_LEVEL);
  }

  public WriterOptions withPageBytes(int bytes) {
    return new WriterOptions(bytes, columnGroups, zstdLevel);
  }

  public WriterOptions withColumnGroups(List<List<String>> groups) {
    return new WriterOptions(pageBytes, groups, zstdLevel);
  }

  /** Adds one column group. */
  public WriterOptions withColumnGroup(String... fields) {
    List<List<String>> groups = new ArrayList<>(columnGroups);
    groups.add(List.of(fields));
    return new WriterOptions(pageBytes, groups, zstdLevel);
  }

  public WriterOptions withZstdLevel(int level) {
    return new WriterOptions(pageBytes, columnGroups, level);
  }
}

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
 * @param zstdLevel zstd level for wide variable-size records and compressed sectors, 0 to never
 *     compress (default 3)
 * @param compressSectors whether narrow values may be packed into compressed sectors (format 1.1,
 *     FORMAT.md §5.1): a file written with this on and a zstd level above 0 is marked version 1.1,
 *     which 1.0 readers refuse; off, the file is 1.0 (default on)
 */
public record WriterOptions(
    int pageBytes, List<List<String>> columnGroups, int zstdLevel, boolean compressSectors) {
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

  /** Options with compressed sectors on. */
  public WriterOptions(int pageBytes, List<List<String>> columnGroups, int zstdLevel) {
    this(pageBytes, columnGroups, zstdLevel, true);
  }

  /** 1 MiB pages, no column groups, zstd level 3 for wide variable records and sectors. */
  public static WriterOptions defaults() {
    return new WriterOptions(DEFAULT_PAGE_BYTES, List.of(), DEFAULT_ZSTD_LEVEL, true);
  }

  /** Whether the file uses compressed sectors at all, which makes it version 1.1. */
  public boolean sectorZstd() {
    return compressSectors && zstdLevel > 0;
  }

  /** The minor format version of files written with these options. */
  public int versionMinor() {
    return sectorZstd() ? dev.riffle.format.FileLayout.MINOR_SECTOR_ZSTD : 0;
  }

  public WriterOptions withCompressSectors(boolean on) {
    return new WriterOptions(pageBytes, columnGroups, zstdLevel, on);
  }

  public WriterOptions withPageBytes(int bytes) {
    return new WriterOptions(bytes, columnGroups, zstdLevel, compressSectors);
  }

  public WriterOptions withColumnGroups(List<List<String>> groups) {
    return new WriterOptions(pageBytes, groups, zstdLevel, compressSectors);
  }

  /** Adds one column group. */
  public WriterOptions withColumnGroup(String... fields) {
    List<List<String>> groups = new ArrayList<>(columnGroups);
    groups.add(List.of(fields));
    return new WriterOptions(pageBytes, groups, zstdLevel, compressSectors);
  }

  public WriterOptions withZstdLevel(int level) {
    return new WriterOptions(pageBytes, columnGroups, level, compressSectors);
  }
}

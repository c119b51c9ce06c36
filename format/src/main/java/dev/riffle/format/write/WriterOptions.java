package dev.riffle.format.write;

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
 * @param compressSectors whether narrow values may be packed into compressed sectors (FORMAT.md
 *     §5.1), when the zstd level is above 0 (default on)
 * @param splitFloats whether wide records holding floats may be stored byte-split (FORMAT.md §5.3),
 *     when the zstd level is above 0 (default off: it costs CPU on every read of a float row for
 *     about 15% less space)
 * @param listSectors whether sectors of lists of fixed-width non-null items may use the LISTS codec
 *     (FORMAT.md §5.1; default on)
 * @param packRecords whether ZIP_VAR records holding lists of non-null integers or floats may be
 *     stored packed (FORMAT.md §5.3): integer lists as their first item, a base delta and
 *     bit-packed deltas; float lists whose items are all integers (counts) as bit-packed integers
 *     (default on)
 */
public record WriterOptions(
    int pageBytes,
    List<List<String>> columnGroups,
    int zstdLevel,
    boolean compressSectors,
    boolean splitFloats,
    boolean listSectors,
    boolean packRecords) {
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

  /** Options with compressed sectors on, split records off. */
  public WriterOptions(int pageBytes, List<List<String>> columnGroups, int zstdLevel) {
    this(pageBytes, columnGroups, zstdLevel, true, false, false, false);
  }

  /** Options with split records off. */
  public WriterOptions(
      int pageBytes, List<List<String>> columnGroups, int zstdLevel, boolean compressSectors) {
    this(pageBytes, columnGroups, zstdLevel, compressSectors, false, false, false);
  }

  /**
   * 1 MiB pages, no column groups, zstd level 3 for wide variable records and sectors, LISTS
   * sectors, packed integer lists, no split records.
   *
   * <p>LISTS sectors are on: they save the 2-byte offset and most of the count byte of every short
   * list for a fraction of a µs per decoded row. Split records stay off: their smaller float
   * vectors cost several µs of CPU per row to inflate, a large part of the loader's budget per
   * sample. Packed integer lists are on: sorted ids take a few bits instead of 32 and unpack in
   * about a nanosecond an item (benchmarks/RESULTS.md, "File sizes" and "Decode cost").
   */
  public static WriterOptions defaults() {
    return new WriterOptions(
        DEFAULT_PAGE_BYTES, List.of(), DEFAULT_ZSTD_LEVEL, true, false, true, true);
  }

  /** Whether the file uses compressed sectors at all, which makes it version 1.1. */
  public boolean sectorZstd() {
    return compressSectors && zstdLevel > 0;
  }

  /** Whether wide float records may be split, which makes a file with such a column 1.2. */
  public boolean splitRecords() {
    return splitFloats && zstdLevel > 0;
  }

  public WriterOptions withCompressSectors(boolean on) {
    return new WriterOptions(
        pageBytes, columnGroups, zstdLevel, on, splitFloats, listSectors, packRecords);
  }

  public WriterOptions withListSectors(boolean on) {
    return new WriterOptions(
        pageBytes, columnGroups, zstdLevel, compressSectors, splitFloats, on, packRecords);
  }

  public WriterOptions withSplitFloats(boolean on) {
    return new WriterOptions(
        pageBytes, columnGroups, zstdLevel, compressSectors, on, listSectors, packRecords);
  }

  public WriterOptions withPackRecords(boolean on) {
    return new WriterOptions(
        pageBytes, columnGroups, zstdLevel, compressSectors, splitFloats, listSectors, on);
  }

  public WriterOptions withPageBytes(int bytes) {
    return new WriterOptions(
        bytes, columnGroups, zstdLevel, compressSectors, splitFloats, listSectors, packRecords);
  }

  public WriterOptions withColumnGroups(List<List<String>> groups) {
    return new WriterOptions(
        pageBytes, groups, zstdLevel, compressSectors, splitFloats, listSectors, packRecords);
  }

  /** Adds one column group. */
  public WriterOptions withColumnGroup(String... fields) {
    List<List<String>> groups = new ArrayList<>(columnGroups);
    groups.add(List.of(fields));
    return new WriterOptions(
        pageBytes, groups, zstdLevel, compressSectors, splitFloats, listSectors, packRecords);
  }

  public WriterOptions withZstdLevel(int level) {
    return new WriterOptions(
        pageBytes, columnGroups, level, compressSectors, splitFloats, listSectors, packRecords);
  }
}

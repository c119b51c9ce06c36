package dev.riffle.format.read;

import dev.riffle.format.ColumnLayout;
import dev.riffle.format.FileLayout;
import dev.riffle.format.SectorLayout;
import dev.riffle.format.ZipLayout;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * How the records of one stored column are encoded: for every zipped page (read whole, its CRC
 * verified), the number of records and their stored bytes by kind — plain, packed, zstd, split,
 * null — so that {@code riffle inspect --records} can say what the writer chose (FORMAT.md §5.5).
 * Sector pages (read whole, their CRC verified) are counted apart, by sector: how many of each
 * codec, how many of those compressed, and how many LISTS sectors pack their items as decimals.
 *
 * @param counts records by kind, indexed by the {@code KIND_*} constants
 * @param bytes stored bytes by kind (control byte and record CRC included)
 * @param sectors sectors by codec, indexed by the sector codec ({@link #SECTOR_NAMES})
 * @param zstdSectors compressed sectors by codec
 * @param packedItemSectors LISTS sectors whose items are packed decimals (1.4)
 */
public record RecordCensus(
    long[] counts,
    long[] bytes,
    long sectorRows,
    long[] sectors,
    long[] zstdSectors,
    long packedItemSectors) {
  public static final int KIND_PLAIN = 0;
  public static final int KIND_PACKED = 1;
  public static final int KIND_ZSTD = 2;
  public static final int KIND_SPLIT = 3;
  public static final int KIND_NULL = 4;
  public static final String[] KIND_NAMES = {"plain", "packed", "zstd", "split", "null"};

  /** Sector codecs by their number (FORMAT.md §5.1). */
  public static final String[] SECTOR_NAMES = {"flat", "for", "records", "lists"};

  static RecordCensus count(FileReader reader, ColumnReader col) throws IOException {
    long[] counts = new long[KIND_NAMES.length];
    long[] bytes = new long[KIND_NAMES.length];
    long sectorRows = 0;
    long[] sectors = new long[SECTOR_NAMES.length];
    long[] zstd = new long[SECTOR_NAMES.length];
    long packedItems = 0;
    long[] range = new long[2];
    for (int p = 0; p < col.pages.length; p++) {
      PageInfo page = col.pages[p];
      ByteBuffer b = reader.readPage(col, p);
      if (page.layout() == ColumnLayout.LAYOUT_SECTORS) {
        sectorRows += page.rowCount();
        for (int at = 0; at + FileLayout.SECTOR_BYTES <= b.limit(); at += FileLayout.SECTOR_BYTES) {
          // The page CRC is verified; an unknown codec is the reader's error to report, not ours.
          int codec = Math.min(b.get(at + SectorLayout.CODEC_OFFSET) & 0xFF, sectors.length - 1);
          int flags = b.get(at + SectorLayout.FLAGS_OFFSET) & 0xFF;
          sectors[codec]++;
          zstd[codec] += (flags & SectorLayout.FLAG_ZSTD) != 0 ? 1 : 0;
          packedItems += (flags & SectorLayout.FLAG_PACKED_ITEMS) != 0 ? 1 : 0;
        }
        continue;
      }
      for (int k = 0; k < page.rowCount(); k++) {
        int kind;
        long length;
        if (page.layout() == ColumnLayout.LAYOUT_ZIP_FIXED) {
          length = page.slotWidth();
          boolean isNull = page.hasNulls() && b.get((int) ((long) k * length)) == 0;
          kind = isNull ? KIND_NULL : KIND_PLAIN;
        } else {
          page.index().getPair(k, range);
          length = range[1] - range[0];
          kind = kind(b.get((int) range[0]) & 0xFF);
        }
        counts[kind]++;
        bytes[kind] += length;
      }
    }
    return new RecordCensus(counts, bytes, sectorRows, sectors, zstd, packedItems);
  }

  private static int kind(int control) {
    if (control == 0) {
      return KIND_NULL;
    }
    if ((control & ZipLayout.CONTROL_PACKED) != 0) {
      return KIND_PACKED;
    }
    if ((control & ZipLayout.CONTROL_ZSTD) != 0) {
      return KIND_ZSTD;
    }
    if ((control & ZipLayout.CONTROL_SPLIT) != 0) {
      return KIND_SPLIT;
    }
    return KIND_PLAIN;
  }
}

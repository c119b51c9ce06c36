package dev.riffle.format.encoding;

import static dev.riffle.format.SectorLayout.HEADER_BYTES;

import dev.riffle.format.ByteSink;
import dev.riffle.format.SectorLayout;
import java.nio.ByteBuffer;

/**
 * Packs a page's rows into self-contained 4 KiB sectors ({@link SectorLayout}). Packing is greedy:
 * a sector takes rows while its encoding still fits, so no value ever straddles a sector and one
 * aligned read serves any row.
 *
 * <p>This class only chooses each sector's rows and form; the codecs encode: {@link
 * FixedSectorEncoder} (FLAT, FOR), {@link RecordSectorEncoder} (RECORDS), {@link ListSectorEncoder}
 * (LISTS), and {@link ZstdSectorEncoder} frames a payload as a compressed sector where that packs
 * enough more rows.
 */
public final class SectorEncoder {
  private SectorEncoder() {}

  /** Encodes fixed-width values without compressed sectors. */
  public static LongList encodeFixed(PageRows rows, int width, int signedness, ByteSink out) {
    return encodeFixed(rows, width, signedness, 0, out);
  }

  /**
   * Encodes fixed-width values (each valid record is {@code width} little-endian bytes). Integer
   * kinds ({@code signedness} 0 or 1) use frame-of-reference bit packing per sector when it is
   * smaller than the flat form.
   *
   * @param zstdLevel level of compressed sectors, 0 for none
   * @return the first row of each sector, relative to the page
   */
  public static LongList encodeFixed(
      PageRows rows, int width, int signedness, int zstdLevel, ByteSink out) {
    PayloadEncoder fixed = new FixedSectorEncoder(rows, width, signedness);
    return pack(rows, fixed, fixed, zstdLevel, out);
  }

  /** Encodes variable-size records without compressed sectors. */
  public static LongList encodeRecords(PageRows rows, ByteSink out) {
    return encodeRecords(rows, 0, out);
  }

  /**
   * Encodes variable-size records; every record must be at most {@link
   * SectorLayout#MAX_RECORD_BYTES}.
   *
   * @param zstdLevel level of compressed sectors, 0 for none
   */
  public static LongList encodeRecords(PageRows rows, int zstdLevel, ByteSink out) {
    PayloadEncoder records = new RecordSectorEncoder(rows);
    return pack(rows, records, records, zstdLevel, out);
  }

  /**
   * Encodes list records ({@code varint count}, then {@code count} items of {@code itemWidth}
   * bytes) into sectors: a sector that compressed sectors do not take (see {@link #encodeRecords})
   * is written with the LISTS codec, bit-packed counts and the items back to back, instead of as
   * plain records, unless a list with a null item (which LISTS sectors cannot hold) leaves it fewer
   * rows than the RECORDS sector.
   *
   * @param floatItems whether the items are float32 or float64 (1.4: they may be packed decimals)
   * @param zstdLevel level of compressed sectors, 0 for none
   */
  public static LongList encodeLists(
      PageRows rows,
      int itemWidth,
      boolean itemsNullable,
      boolean floatItems,
      int zstdLevel,
      ByteSink out) {
    return pack(
        rows,
        new RecordSectorEncoder(rows),
        new ListSectorEncoder(rows, itemWidth, itemsNullable, floatItems ? itemWidth : 0),
        zstdLevel,
        out);
  }

  /**
   * The greedy packing. Each sector starts with the plain greedy sector of {@code base}; with a
   * zstd level, a compressed sector of {@code base}'s payload is written instead where one
   * qualifies; otherwise the sector is written plain with {@code plain}'s encoding: {@code base}'s
   * own, or for lists the LISTS sector of as many rows as that takes.
   *
   * @return the first row of each sector, relative to the page
   */
  private static LongList pack(
      PageRows rows, PayloadEncoder base, PayloadEncoder plain, int zstdLevel, ByteSink out) {
    SectorPayload payload = new SectorPayload();
    ZstdSectorEncoder zstd =
        zstdLevel > 0 ? new ZstdSectorEncoder(rows, base, payload, zstdLevel) : null;
    LongList firstRows = new LongList();
    int row = 0;
    int valid = 0;
    while (row < rows.rowCount()) {
      int n = base.plainRows(row, valid);
      int lists = plain == base ? n : plain.plainRows(row, valid);
      // Packed items cost a decode per read, as an inflate does: then a compressed sector must
      // hold a quarter more rows than the LISTS sector, not only than the plain RECORDS one.
      boolean packedItems = plain instanceof ListSectorEncoder l && l.packsItems();
      int m = zstd != null ? zstd.rows(row, valid, packedItems ? Math.max(n, lists) : n) : 0;
      firstRows.add(row);
      int taken;
      if (m > 0) {
        zstd.write(row, valid, m, out);
        taken = m;
      } else {
        // A LISTS sector stops before a list with a null item; where it then holds fewer rows
        // than the plain RECORDS sector, that is written (so no page needs more sectors).
        PayloadEncoder codec = lists >= n ? plain : base;
        taken = Math.max(lists, n);
        codec.build(row, valid, taken, payload);
        writePlain(payload, taken, out);
      }
      valid += payload.valid;
      row += taken;
    }
    return firstRows;
  }

  /** Appends the payload of {@code n} rows as a plain sector. */
  private static void writePlain(SectorPayload payload, int n, ByteSink out) {
    ByteBuffer s = payload.header(out, n, 0);
    s.position(HEADER_BYTES);
    s.put(payload.buf.array(), 0, payload.length);
    SectorPayload.seal(s);
  }
}

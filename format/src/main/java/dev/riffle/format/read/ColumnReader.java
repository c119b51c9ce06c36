package dev.riffle.format.read;

import dev.riffle.format.ColumnLayout;
import dev.riffle.format.CorruptFileException;
import dev.riffle.format.FileLayout;
import dev.riffle.format.encoding.VectorSizes;
import dev.riffle.format.schema.ColumnSpec;
import dev.riffle.format.schema.RiffleSchema;
import dev.riffle.format.schema.TypeSupport;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * The search metadata of one stored column, and the decoding of its rows from the bytes a read
 * returned. Immutable after load and safe for concurrent takes.
 */
final class ColumnReader implements AutoCloseable {
  final int index;
  final ColumnSpec spec;
  final PageInfo[] pages;
  private final long[] pageFirstRows;
  private final String resource;
  private final FieldVector dictionary;
  final long blockBytes;
  final long dataBytes;
  final long ramBytes;
  private final RowCodec rows;
  private final SectorDecoder sectors;
  private final ZipDecoder zips;

  ColumnReader(
      int index,
      ColumnSpec spec,
      PageInfo[] pages,
      String resource,
      RiffleSchema schema,
      FieldVector dictionary,
      long blockBytes,
      long dataBytes,
      boolean v14) {
    // v14: the file is 1.4 (its packed records may pack float lists too).
    this.index = index;
    this.spec = spec;
    this.pages = pages;
    this.resource = resource;
    this.dictionary = dictionary;
    this.blockBytes = blockBytes;
    this.dataBytes = dataBytes;
    pageFirstRows = new long[pages.length];
    long ram = 16L + 8L * pages.length + 64L * pages.length;
    for (int p = 0; p < pages.length; p++) {
      pageFirstRows[p] = pages[p].firstRow();
      ram += pages[p].index() == null ? 0 : pages[p].index().ramBytes();
      for (PageStats st : pages[p].stats()) {
        ram += st.ramBytes();
      }
    }
    if (dictionary != null) {
      ram += dictionary.getBufferSize();
    }
    this.ramBytes = ram;
    this.rows = new RowCodec(schema, spec);
    if (spec.group()) {
      sectors = new SectorDecoder(resource, spec, rows, -1, false, -1, false, false);
      zips = new ZipDecoder(resource, rows, rows.packs(v14), v14);
    } else {
      Field field = schema.fields().get(spec.fields().get(0));
      int fixedWidth =
          field.getType() instanceof org.apache.arrow.vector.types.pojo.ArrowType.Bool
              ? 1
              : TypeSupport.fixedWidth(field.getType());
      // Frame of reference is only ever written for integers of 1, 2, 4 or 8 bytes.
      boolean integerColumn =
          TypeSupport.integerSignedness(field.getType()) >= 0
              && Integer.bitCount(fixedWidth) == 1
              && fixedWidth <= 8;
      int listItemWidth = TypeSupport.listItemWidth(field, v14);
      sectors =
          new SectorDecoder(
              resource,
              spec,
              rows,
              fixedWidth,
              integerColumn,
              listItemWidth,
              listItemWidth > 0 && field.getChildren().get(0).isNullable(),
              // Packed float items (1.4): LISTS of float32 or float64.
              v14
                  && listItemWidth > 0
                  && field.getChildren().get(0).getType()
                      instanceof org.apache.arrow.vector.types.pojo.ArrowType.FloatingPoint fp
                  && fp.getPrecision()
                      != org.apache.arrow.vector.types.FloatingPointPrecision.HALF);
      zips = new ZipDecoder(resource, rows, field.getDictionary() == null && rows.packs(v14), v14);
    }
  }

  /** Pages of a 1.0 file (no record CRCs) whose page CRC a take has verified. */
  private final java.util.BitSet checkedPages = new java.util.BitSet();

  /** Reads and verifies a page whole. */
  interface PageCheck {
    void verify(int page) throws java.io.IOException;
  }

  /**
   * Runs {@code check} on page {@code p} unless it passed before. Takes that need the page wait for
   * the one checking it, so that no take decodes a record of a page that has not passed.
   */
  synchronized void checkPageOnce(int p, PageCheck check) throws java.io.IOException {
    if (!checkedPages.get(p)) {
      check.verify(p);
      checkedPages.set(p);
    }
  }

  FieldVector dictionary() {
    return dictionary;
  }

  long rowCount() {
    return pages.length == 0
        ? 0
        : pageFirstRows[pages.length - 1] + pages[pages.length - 1].rowCount();
  }

  int pageOf(long row) {
    int lo = 0;
    int hi = pages.length - 1;
    while (lo < hi) {
      int mid = (lo + hi + 1) >>> 1;
      if (pageFirstRows[mid] <= row) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    return lo;
  }

  /**
   * Stores the byte range of {@code row} in {@code out[0]} (offset) and {@code out[1]} (length).
   */
  void locate(long row, long[] out) throws CorruptFileException {
    PageInfo page = pages[pageOf(row)];
    int k = (int) (row - page.firstRow());
    switch (page.layout()) {
      case ColumnLayout.LAYOUT_SECTORS:
        int s = page.index().floorIndex(k);
        out[0] = page.offset() + (long) s * FileLayout.SECTOR_BYTES;
        out[1] = FileLayout.SECTOR_BYTES;
        return;
      case ColumnLayout.LAYOUT_ZIP_FIXED:
        out[0] = page.offset() + (long) k * page.slotWidth();
        out[1] = page.slotWidth();
        return;
      default:
        page.index().getPair(k, out);
        long a = out[0];
        long b = out[1];
        if (b <= a) {
          throw new CorruptFileException(resource, page.offset() + a, "empty record");
        }
        out[0] = page.offset() + a;
        out[1] = b - a;
    }
  }

  /**
   * Decodes one row from a buffer that holds the file bytes starting at {@code bufFileOffset} and
   * includes the row's byte range.
   */
  void decodeRow(long row, ByteBuffer buf, long bufFileOffset, Target t, int j)
      throws CorruptFileException {
    int p = pageOf(row);
    PageInfo page = pages[p];
    int k = (int) (row - page.firstRow());
    switch (page.layout()) {
      case ColumnLayout.LAYOUT_SECTORS:
        {
          int s = page.index().floorIndex(k);
          long sectorAt = page.offset() + (long) s * FileLayout.SECTOR_BYTES;
          int first = (int) page.index().get(s);
          sectors.decodeSector(
              page,
              s,
              buf,
              (int) (sectorAt - bufFileOffset),
              sectorAt,
              k - first,
              k - first + 1,
              t,
              j);
          return;
        }
      case ColumnLayout.LAYOUT_ZIP_FIXED:
        {
          long at = page.offset() + (long) k * page.slotWidth();
          zips.decodeSlot(page, buf, (int) (at - bufFileOffset), at, t, j);
          return;
        }
      default:
        {
          long[] range = new long[2];
          page.index().getPair(k, range);
          long a = range[0];
          long b = range[1];
          long at = page.offset() + a;
          zips.decodeVar(
              buf, (int) (at - bufFileOffset), (int) (b - a), at, page.recordCrcs(), t, j);
        }
    }
  }

  /** Decodes page-relative rows [from, from + count) of page {@code p} held whole in pageBuf. */
  void decodePageRows(int p, ByteBuffer pageBuf, int from, int count, Target t, int outStart)
      throws CorruptFileException {
    PageInfo page = pages[p];
    int end = from + count;
    switch (page.layout()) {
      case ColumnLayout.LAYOUT_SECTORS:
        {
          int s = page.index().floorIndex(from);
          int k = from;
          while (k < end) {
            int first = (int) page.index().get(s);
            int next =
                s + 1 < page.index().size() ? (int) page.index().get(s + 1) : page.rowCount();
            int to = Math.min(end, next);
            sectors.decodeSector(
                page,
                s,
                pageBuf,
                s * FileLayout.SECTOR_BYTES,
                page.offset() + (long) s * FileLayout.SECTOR_BYTES,
                k - first,
                to - first,
                t,
                outStart + (k - from));
            k = to;
            s++;
          }
          return;
        }
      case ColumnLayout.LAYOUT_ZIP_FIXED:
        for (int k = from; k < end; k++) {
          long rel = (long) k * page.slotWidth();
          zips.decodeSlot(page, pageBuf, (int) rel, page.offset() + rel, t, outStart + (k - from));
        }
        return;
      default:
        long[] range = new long[2];
        for (int k = from; k < end; k++) {
          page.index().getPair(k, range);
          long a = range[0];
          long b = range[1];
          zips.decodeVar(
              pageBuf,
              (int) a,
              (int) (b - a),
              page.offset() + a,
              page.recordCrcs(),
              t,
              outStart + (k - from));
        }
    }
  }

  /**
   * Adds what decoding {@code row} will put into the vectors to {@code s}, from the same buffer
   * {@link #decodeRow} would decode it from. Only rows of ZIP_FIXED and ZIP_VAR pages (wide values,
   * where buffer growth costs) are measured; measuring never fails.
   *
   * @return false if the row was not measured: it lies in a sector, it is compressed and only
   *     inflating it would tell, or its bytes are damaged (decoding will report it)
   */
  boolean measureRow(long row, ByteBuffer buf, long bufFileOffset, VectorSizes s) {
    PageInfo page = pages[pageOf(row)];
    int k = (int) (row - page.firstRow());
    try {
      switch (page.layout()) {
        case ColumnLayout.LAYOUT_ZIP_FIXED:
          long at = page.offset() + (long) k * page.slotWidth();
          return zips.measureSlot(page, buf, (int) (at - bufFileOffset), s);
        case ColumnLayout.LAYOUT_ZIP_VAR:
          long[] range = new long[2];
          page.index().getPair(k, range);
          long a = range[0];
          long b = range[1];
          return zips.measureVar(
              buf, (int) (page.offset() + a - bufFileOffset), (int) (b - a), page.recordCrcs(), s);
        default:
          return false;
      }
    } catch (CorruptFileException | RuntimeException e) {
      return false;
    }
  }

  /**
   * {@link #measureRow} for page-relative rows [from, from + count) of a page held whole; rows of a
   * SECTORS page are estimated instead ({@link SectorDecoder#estimatePageRows}).
   */
  boolean measurePageRows(int p, ByteBuffer pageBuf, int from, int count, VectorSizes s) {
    PageInfo page = pages[p];
    try {
      if (page.layout() == ColumnLayout.LAYOUT_SECTORS) {
        // Rows in sectors are estimated from the sectors' headers and offsets, not decoded twice.
        return sectors.estimatePageRows(page, pageBuf, from, count, s);
      }
      long[] range = new long[2];
      for (int k = from; k < from + count; k++) {
        boolean ok;
        if (page.layout() == ColumnLayout.LAYOUT_ZIP_FIXED) {
          ok = zips.measureSlot(page, pageBuf, (int) ((long) k * page.slotWidth()), s);
        } else if (page.layout() == ColumnLayout.LAYOUT_ZIP_VAR) {
          page.index().getPair(k, range);
          ok =
              zips.measureVar(
                  pageBuf, (int) range[0], (int) (range[1] - range[0]), page.recordCrcs(), s);
        } else {
          ok = false;
        }
        if (!ok) {
          return false;
        }
      }
      return true;
    } catch (CorruptFileException | RuntimeException e) {
      return false;
    }
  }

  /**
   * Whether measuring the rows before decoding sizes the result better than the defaults do: for
   * variable-size values only (fixed-width vectors are sized exactly from the row count anyway).
   */
  boolean sizedByData() {
    return rows.sizedByData();
  }

  /** An empty sizes tree for this column: the codec's, or for a group one child per field. */
  VectorSizes newSizes() {
    return rows.newSizes();
  }

  /**
   * Sets the initial capacities of the result vector of top-level field {@code fieldIndex} (one of
   * this column's) for {@code rows} rows from measured sizes; the caller allocates it.
   */
  VectorSizes presize(FieldVector v, int fieldIndex, VectorSizes s, int rowCount) {
    return rows.presize(v, fieldIndex, s, rowCount);
  }

  /** Page summaries for inspection. */
  List<String> layoutNames() {
    List<String> names = new ArrayList<>();
    for (PageInfo p : pages) {
      names.add(ColumnLayout.layoutName(p.layout()));
    }
    return names;
  }

  @Override
  public void close() {
    if (dictionary != null) {
      dictionary.close();
    }
  }
}

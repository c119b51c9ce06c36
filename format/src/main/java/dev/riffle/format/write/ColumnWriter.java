package dev.riffle.format.write;

import dev.riffle.format.ByteSink;
import dev.riffle.format.ColumnLayout;
import dev.riffle.format.PageEntryLayout;
import dev.riffle.format.PageStatsLayout;
import dev.riffle.format.ZipLayout;
import dev.riffle.format.encoding.ByteSplit;
import dev.riffle.format.encoding.Codecs;
import dev.riffle.format.encoding.EliasFano;
import dev.riffle.format.encoding.LongList;
import dev.riffle.format.encoding.PageRows;
import dev.riffle.format.encoding.PageStatsCollector;
import dev.riffle.format.encoding.RecordPacker;
import dev.riffle.format.encoding.SectorEncoder;
import dev.riffle.format.encoding.StructCodec;
import dev.riffle.format.encoding.ValueCodec;
import dev.riffle.format.encoding.ZipEncoder;
import dev.riffle.format.schema.ColumnSpec;
import dev.riffle.format.schema.RiffleSchema;
import dev.riffle.format.schema.StatsKinds;
import dev.riffle.format.schema.TypeSupport;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * Buffers one stored column's records for a page, flushes pages in the layout {@link PagePolicy}
 * picks, gathers each page's statistics as its rows arrive, and finally writes the column block
 * that describes them.
 */
final class ColumnWriter {
  private final ColumnSpec spec;
  private final ValueCodec codec;
  private final StructCodec group;
  private final boolean fixedPrimitive;
  private final int width;
  private final int signedness;
  private final DictionaryRemapper dictionary;
  private final int pageBytes;
  private final int zstdLevel;

  /** zstd level of compressed sectors, 0 for none. */
  private final int sectorZstdLevel;

  /** Plane stride of split records (format 1.2), 0 if this column never splits. */
  private final int splitStride;

  /** Item width of LISTS sectors (format 1.2), 0 if this column never uses them. */
  private final int listItemWidth;

  /** Whether the items of this column's LISTS sectors are declared nullable (1.4). */
  private final boolean listItemsNullable;

  /** Whether this column's LISTS items are float32 or float64 (1.4: they may pack as decimals). */
  private final boolean listFloatItems;

  /** Packs the integer lists of ZIP_VAR records (format 1.3), null if this column never does. */
  private final RecordPacker packer;

  private final ZipEncoder.ZstdTrials zstdTrials = new ZipEncoder.ZstdTrials();

  /** Page statistics per field of the column, in column order (FORMAT.md §4.5). */
  private final PageStatsCollector[] stats;

  /** The statistics kinds of {@link #stats}; null for a dictionary field (known at the end). */
  private final PageStatsLayout.Kind[] statsKinds;

  private final PageRows rows = new PageRows();
  private final ByteSink page = new ByteSink(64 * 1024);
  private final ByteSink entries = new ByteSink(1024);
  private final ByteSink indexes = new ByteSink(1024);
  private int pageCount;
  private long firstRow;
  private long dataBytes;

  /**
   * @param sectorZstd whether sectors may be compressed (at {@code zstdLevel})
   * @param split whether ZIP records holding floats may be split (at {@code zstdLevel})
   * @param lists whether sectors of lists of fixed-width items may use the LISTS codec
   * @param packRecords whether ZIP_VAR records with lists of non-null integers may be packed
   * @param sharedDictionary the code assignment to continue (a dataset's previous file), or null
   */
  ColumnWriter(
      RiffleSchema schema,
      ColumnSpec spec,
      int pageBytes,
      int zstdLevel,
      boolean sectorZstd,
      boolean split,
      boolean lists,
      boolean packRecords,
      DictionaryRemapper sharedDictionary) {
    this.spec = spec;
    this.pageBytes = pageBytes;
    this.zstdLevel = zstdLevel;
    this.sectorZstdLevel = sectorZstd ? zstdLevel : 0;
    int m = spec.fields().size();
    stats = new PageStatsCollector[m];
    statsKinds = new PageStatsLayout.Kind[m];
    for (int k = 0; k < m; k++) {
      Field f = schema.fields().get(spec.fields().get(k));
      statsKinds[k] = f.getDictionary() == null ? StatsKinds.of(f) : null;
      stats[k] =
          new PageStatsCollector(
              statsKinds[k] != null ? statsKinds[k] : PageStatsLayout.Kind.codes(0));
    }
    if (spec.group()) {
      group = Codecs.forGroup(schema, spec);
      codec = null;
      fixedPrimitive = false;
      width = -1;
      signedness = -1;
      dictionary = null;
      int stride = 0;
      for (int f : spec.fields()) {
        stride = stride > 0 ? stride : TypeSupport.floatStride(schema.fields().get(f));
      }
      splitStride = split ? stride : 0;
      listItemWidth = 0;
      listItemsNullable = false;
      listFloatItems = false;
      packer = packRecords ? RecordPacker.of(group) : null;
      return;
    }
    int fieldIndex = spec.fields().get(0);
    Field field = schema.fields().get(fieldIndex);
    group = null;
    codec = Codecs.forField(field);
    ArrowType t = field.getType();
    fixedPrimitive = t instanceof ArrowType.Bool || TypeSupport.fixedWidth(t) > 0;
    width = t instanceof ArrowType.Bool ? 1 : TypeSupport.fixedWidth(t);
    signedness = TypeSupport.integerSignedness(t);
    if (field.getDictionary() != null) {
      Field values = schema.dictionaryValues(fieldIndex);
      ArrowType.Int index = field.getDictionary().getIndexType();
      dictionary =
          sharedDictionary != null
              ? sharedDictionary
              : new DictionaryRemapper(
                  field.getName(),
                  Codecs.forField(values),
                  index.getBitWidth(),
                  index.getIsSigned());
    } else {
      dictionary = null;
    }
    // Fixed-width primitives go to value sectors and dictionary fields hold integer codes.
    splitStride =
        split
                && dictionary == null
                && !(fixedPrimitive && width <= PagePolicy.MAX_SECTOR_VALUE_WIDTH)
            ? TypeSupport.floatStride(field)
            : 0;
    // The writer writes 1.4, where lists of nullable items may be LISTS sectors too.
    listItemWidth = lists ? Math.max(0, TypeSupport.listItemWidth(field, true)) : 0;
    listItemsNullable = listItemWidth > 0 && field.getChildren().get(0).isNullable();
    listFloatItems =
        listItemWidth > 0
            && field.getChildren().get(0).getType() instanceof ArrowType.FloatingPoint fp
            && fp.getPrecision() != org.apache.arrow.vector.types.FloatingPointPrecision.HALF;
    // Dictionary fields hold integer codes in value sectors, never lists.
    packer = packRecords && dictionary == null ? RecordPacker.of(codec) : null;
  }

  /** Whether this column may write packed records (which makes the file 1.3). */
  boolean packsRecords() {
    return packer != null;
  }

  /** The item width of LISTS sectors, 0 if this column never uses them. */
  int listItemWidth() {
    return listItemWidth;
  }

  /** The plane stride of split records, 0 if this column never splits them. */
  int splitStride() {
    return splitStride;
  }

  ColumnSpec spec() {
    return spec;
  }

  DictionaryRemapper dictionary() {
    return dictionary;
  }

  /** Appends row {@code i}; {@code vectors} are this column's vectors in the batch. */
  void append(List<FieldVector> vectors, int i) {
    if (group != null) {
      for (FieldVector g : vectors) {
        if (!g.getField().isNullable() && g.isNull(i)) {
          throw new IllegalArgumentException(
              "field '" + g.getName() + "' is not nullable but row " + i + " of the batch is null");
        }
      }
      ByteSink out = rows.beginValid();
      group.encode(vectors, i, out);
      rows.endValid();
      for (int k = 0; k < stats.length; k++) {
        FieldVector g = vectors.get(k);
        if (g.isNull(i)) {
          stats[k].addNull();
        } else {
          stats[k].add(g, i);
        }
      }
      return;
    }
    FieldVector v = vectors.get(0);
    if (dictionary != null) {
      int code = dictionary.code((BaseIntVector) v, i);
      if (code < 0) {
        rows.addNull();
        stats[0].addNull();
      } else {
        rows.beginValid().putLongBytes(code, width);
        rows.endValid();
        stats[0].addCode(code);
      }
      return;
    }
    if (v.isNull(i)) {
      if (!v.getField().isNullable()) {
        throw new IllegalArgumentException(
            "field '" + spec.name() + "' is not nullable but row " + i + " of the batch is null");
      }
      rows.addNull();
      stats[0].addNull();
      return;
    }
    codec.encode(v, i, rows.beginValid(), true);
    rows.endValid();
    stats[0].add(v, i);
  }

  boolean pageFull() {
    return rows.bytes() >= pageBytes || rows.rowCount() >= (1 << 24);
  }

  /** Encodes the buffered rows as a page at the output's next sector boundary. */
  void flush(FileOutput out) throws IOException {
    if (rows.rowCount() == 0) {
      return;
    }
    page.clear();
    int layout = PagePolicy.choose(rows, fixedPrimitive, width);
    int slotWidth = 0;
    LongList index = null;
    switch (layout) {
      case ColumnLayout.LAYOUT_SECTORS:
        index =
            fixedPrimitive && width <= PagePolicy.MAX_SECTOR_VALUE_WIDTH
                ? SectorEncoder.encodeFixed(rows, width, signedness, sectorZstdLevel, page)
                : listItemWidth > 0
                    ? SectorEncoder.encodeLists(
                        rows,
                        listItemWidth,
                        listItemsNullable,
                        listFloatItems,
                        sectorZstdLevel,
                        page)
                    : SectorEncoder.encodeRecords(rows, sectorZstdLevel, page);
        break;
      case ColumnLayout.LAYOUT_ZIP_FIXED:
        int recordBytes = rows.recordEnd(0);
        if (splitStride > 0 || packer != null) {
          // Split and packed records differ in size, so they need ZIP_VAR and its index: worth it
          // only if the page shrinks by 1/20 at least (FORMAT.md §5.5).
          index = ZipEncoder.encodeVar(rows, zstdLevel, splitStride, packer, zstdTrials, page);
          long fixedBytes =
              (long) rows.rowCount()
                  * (recordBytes
                      + (rows.validCount() < rows.rowCount() ? 1 : 0)
                      + ZipLayout.RECORD_CRC_BYTES);
          if (ByteSplit.worthIt(page.length(), fixedBytes)) {
            layout = ColumnLayout.LAYOUT_ZIP_VAR;
            break;
          }
          index = null;
          page.clear();
        }
        slotWidth = ZipEncoder.encodeFixed(rows, recordBytes, page);
        break;
      default:
        index = ZipEncoder.encodeVar(rows, zstdLevel, splitStride, packer, zstdTrials, page);
    }
    long offset = out.alignToSector();
    out.write(page.array(), 0, page.length());
    CRC32C crc = new CRC32C();
    crc.update(page.array(), 0, page.length());
    int indexLength = 0;
    if (index != null) {
      EliasFano ef = EliasFano.of(index.array(), index.size());
      indexLength = ef.serializedBytes();
      int at = indexes.reserve(indexLength);
      ef.serialize(
          ByteBuffer.wrap(indexes.array(), at, indexLength).order(ByteOrder.LITTLE_ENDIAN));
    }
    PageEntryLayout.write(
        entries,
        new PageEntryLayout.PageEntry(
            offset,
            page.length(),
            firstRow,
            rows.rowCount(),
            layout,
            (rows.validCount() < rows.rowCount() ? PageEntryLayout.FLAG_HAS_NULLS : 0)
                | (layout == ColumnLayout.LAYOUT_SECTORS ? 0 : PageEntryLayout.FLAG_RECORD_CRC),
            (int) crc.getValue(),
            slotWidth,
            indexLength));
    for (PageStatsCollector s : stats) {
      s.finishPage();
    }
    pageCount++;
    firstRow += rows.rowCount();
    dataBytes += page.length();
    rows.clear();
  }

  int pageCount() {
    return pageCount;
  }

  long dataBytes() {
    return dataBytes;
  }

  /** The column block (ColumnLayout), after the last flush. */
  byte[] block() {
    ByteSink b = new ByteSink(ColumnLayout.HEADER_BYTES + entries.length() + indexes.length() + 64);
    b.putInt(pageCount);
    b.putInt(ColumnLayout.FLAG_STATS | (dictionary != null ? ColumnLayout.FLAG_DICTIONARY : 0));
    b.put(entries.array(), 0, entries.length());
    b.put(indexes.array(), 0, indexes.length());
    if (dictionary != null) {
      List<byte[]> values = new ArrayList<>(dictionary.values());
      b.putInt(values.size());
      for (byte[] v : values) {
        b.putVarint(v.length);
        b.put(v, 0, v.length);
      }
    }
    PageStatsLayout.Kind[] kinds = statsKinds.clone();
    for (int k = 0; k < kinds.length; k++) {
      if (kinds[k] == null) {
        kinds[k] = PageStatsLayout.Kind.codes(dictionary.values().size());
      }
    }
    int statsStart = b.length();
    for (int p = 0; p < pageCount; p++) {
      for (int k = 0; k < stats.length; k++) {
        PageStatsLayout.write(b, kinds[k], stats[k].entry(p, kinds[k]));
      }
    }
    PageStatsLayout.writeTrailer(b, statsStart);
    CRC32C crc = new CRC32C();
    crc.update(b.array(), 0, b.length());
    b.putInt((int) crc.getValue());
    return b.toByteArray();
  }
}

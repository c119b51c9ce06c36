package dev.riffle.format;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * spec/FORMAT.md and the code say the same thing: the byte tables of the head, footer, column
 * directory, page entry and sector header against the {@code *Layout} constants and against the
 * bytes the layouts write, the codes the tables list, and the version the document specifies. A
 * change to either side that the other does not follow fails here.
 */
class SpecTablesTest {
  static final Path SPEC = Path.of("..", "spec", "FORMAT.md");

  static List<String> lines;

  @BeforeAll
  static void readSpec() throws IOException {
    lines = Files.readAllLines(SPEC);
  }

  /** One row of an `| offset | size | field | meaning |` table. */
  record Row(int offset, int size, String field, String meaning) {}

  /** The first such table after the heading that starts with {@code heading}, by field name. */
  static Map<String, Row> table(String heading) {
    int i = 0;
    while (!lines.get(i).startsWith(heading)) {
      i++;
    }
    while (!lines.get(i).startsWith("| offset | size | field |")) {
      i++;
    }
    Map<String, Row> rows = new LinkedHashMap<>();
    for (i += 2; i < lines.size() && lines.get(i).startsWith("|"); i++) {
      String[] cells = lines.get(i).split("\\|", -1);
      String offset = cells[1].strip();
      String size = cells[2].strip();
      if (!offset.matches("\\d+") || !size.matches("\\d+")) {
        continue; // rows placed after variable-size parts ("16 + v", "…")
      }
      String field = cells[3].strip();
      if (rows.containsKey(field)) {
        field = field + "#2"; // a second reserved field
      }
      rows.put(
          field,
          new Row(Integer.parseInt(offset), Integer.parseInt(size), field, cells[4].strip()));
    }
    assertThat(rows).as("table after '%s'", heading).isNotEmpty();
    return rows;
  }

  static void assertContiguous(Map<String, Row> rows, int totalBytes, String what) {
    int next = 0;
    for (Row r : rows.values()) {
      assertThat(r.offset())
          .as("%s: %s starts where the field before it ends", what, r.field())
          .isEqualTo(next);
      next = r.offset() + r.size();
    }
    assertThat(next).as("%s: fields cover all bytes", what).isEqualTo(totalBytes);
  }

  /** The unsigned little-endian value of the spec's field in bytes {@code b}. */
  static long field(byte[] b, Row r) {
    ByteBuffer buf = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
    switch (r.size()) {
      case 1:
        return buf.get(r.offset()) & 0xFF;
      case 2:
        return buf.getShort(r.offset()) & 0xFFFF;
      case 4:
        return buf.getInt(r.offset()) & 0xFFFFFFFFL;
      case 8:
        return buf.getLong(r.offset());
      default:
        throw new AssertionError("field of " + r.size() + " bytes: " + r.field());
    }
  }

  @Test
  void theDocumentSpecifiesTheVersionTheCodeWrites() {
    String version = FileLayout.VERSION_MAJOR + "." + FileLayout.VERSION_MINOR;
    assertThat(lines.get(0)).isEqualTo("# Riffle file format " + version);
    assertThat(String.join("\n", lines))
        .contains(
            "This document specifies version **"
                + version
                + "** (`versionMajor` "
                + FileLayout.VERSION_MAJOR
                + ", `versionMinor` "
                + FileLayout.VERSION_MINOR
                + ")");
  }

  @Test
  void head() {
    Map<String, Row> t = table("### 2.2 Head");
    assertContiguous(t, FileLayout.HEAD_BYTES, "head");
    Row magic = t.get("magic");
    assertThat(magic.size()).isEqualTo(FileLayout.MAGIC.length);
    String hex = HexFormat.ofDelimiter(" ").withUpperCase().formatHex(FileLayout.MAGIC);
    assertThat(magic.meaning()).startsWith("`" + hex + "`");
    assertThat(t.get("versionMajor").offset()).isEqualTo(FileLayout.HEAD_VERSION_MAJOR);
    assertThat(t.get("versionMinor").offset()).isEqualTo(FileLayout.HEAD_VERSION_MINOR);
    assertThat(t.get("versionMajor").meaning())
        .startsWith("`u16`, " + FileLayout.VERSION_MAJOR + ";");
    assertThat(t.get("versionMinor").meaning())
        .startsWith("`u16`, " + FileLayout.VERSION_MINOR + " (§8)");
    byte[] head = FileLayout.writeHead();
    assertThat(field(head, t.get("versionMajor"))).isEqualTo(FileLayout.VERSION_MAJOR);
    assertThat(field(head, t.get("versionMinor"))).isEqualTo(FileLayout.VERSION_MINOR);
    assertThat(head.length).isEqualTo(FileLayout.HEAD_READ_BYTES);
  }

  @Test
  void footer() {
    assertThat(lines).contains("### 3.1 Footer (last " + FooterLayout.FOOTER_BYTES + " bytes)");
    Map<String, Row> t = table("### 3.1 Footer");
    assertContiguous(t, FooterLayout.FOOTER_BYTES, "footer");
    Map<String, Integer> offsets =
        Map.ofEntries(
            Map.entry("schemaOffset", FooterLayout.FOOTER_SCHEMA_OFFSET),
            Map.entry("schemaLength", FooterLayout.FOOTER_SCHEMA_LENGTH),
            Map.entry("directoryOffset", FooterLayout.FOOTER_DIRECTORY_OFFSET),
            Map.entry("columnCount", FooterLayout.FOOTER_COLUMN_COUNT),
            Map.entry("reserved", FooterLayout.FOOTER_RESERVED),
            Map.entry("rowCount", FooterLayout.FOOTER_ROW_COUNT),
            Map.entry("versionMajor", FooterLayout.FOOTER_VERSION_MAJOR),
            Map.entry("versionMinor", FooterLayout.FOOTER_VERSION_MINOR),
            Map.entry("schemaCrc32c", FooterLayout.FOOTER_SCHEMA_CRC),
            Map.entry("directoryCrc32c", FooterLayout.FOOTER_DIRECTORY_CRC),
            Map.entry("footerCrc32c", FooterLayout.FOOTER_CRC),
            Map.entry("magic", FooterLayout.FOOTER_MAGIC));
    assertThat(t.keySet()).containsExactlyInAnyOrderElementsOf(offsets.keySet());
    offsets.forEach((f, at) -> assertThat(t.get(f).offset()).as("footer %s", f).isEqualTo(at));
    assertThat(t.get("versionMinor").meaning())
        .startsWith("`u16`, " + FileLayout.VERSION_MINOR + " (§8)");
    byte[] b =
        FooterLayout.write(
            new FooterLayout.Footer(
                0x1111_0000_0001L,
                0x2222_0000_0002L,
                0x3333_0000_0003L,
                0x44,
                0,
                0x5555_0006L,
                FileLayout.VERSION_MAJOR,
                FileLayout.VERSION_MINOR,
                0x7777,
                0x8888));
    assertThat(b).hasSize(FooterLayout.FOOTER_BYTES);
    assertThat(field(b, t.get("schemaOffset"))).isEqualTo(0x1111_0000_0001L);
    assertThat(field(b, t.get("schemaLength"))).isEqualTo(0x2222_0000_0002L);
    assertThat(field(b, t.get("directoryOffset"))).isEqualTo(0x3333_0000_0003L);
    assertThat(field(b, t.get("columnCount"))).isEqualTo(0x44);
    assertThat(field(b, t.get("reserved"))).isZero();
    assertThat(field(b, t.get("rowCount"))).isEqualTo(0x5555_0006L);
    assertThat(field(b, t.get("schemaCrc32c"))).isEqualTo(0x7777);
    assertThat(field(b, t.get("directoryCrc32c"))).isEqualTo(0x8888);
    assertThat(b).endsWith(FileLayout.MAGIC);
  }

  @Test
  void directoryEntry() {
    Map<String, Row> t = table("### 3.2 Column directory");
    assertContiguous(t, DirectoryLayout.ENTRY_BYTES, "directory entry");
    assertThat(t.get("blockOffset").offset()).isEqualTo(DirectoryLayout.BLOCK_OFFSET);
    assertThat(t.get("blockLength").offset()).isEqualTo(DirectoryLayout.BLOCK_LENGTH);
    assertThat(t.get("dataBytes").offset()).isEqualTo(DirectoryLayout.DATA_BYTES);
    assertThat(t.get("pageCount").offset()).isEqualTo(DirectoryLayout.PAGE_COUNT);
    assertThat(t.get("reserved").offset()).isEqualTo(DirectoryLayout.RESERVED);
    ByteSink out = new ByteSink(DirectoryLayout.ENTRY_BYTES);
    DirectoryLayout.write(out, new DirectoryLayout.Entry(0x1000_0001L, 0x2002, 0x3003, 0x44));
    byte[] b = out.toByteArray();
    assertThat(b).hasSize(DirectoryLayout.ENTRY_BYTES);
    assertThat(field(b, t.get("blockOffset"))).isEqualTo(0x1000_0001L);
    assertThat(field(b, t.get("blockLength"))).isEqualTo(0x2002);
    assertThat(field(b, t.get("dataBytes"))).isEqualTo(0x3003);
    assertThat(field(b, t.get("pageCount"))).isEqualTo(0x44);
    assertThat(field(b, t.get("reserved"))).isZero();
  }

  @Test
  void pageEntry() {
    assertThat(lines).contains("### 4.2 Page entry (" + PageEntryLayout.ENTRY_BYTES + " bytes)");
    Map<String, Row> t = table("### 4.2 Page entry");
    assertThat(t.keySet())
        .containsExactly(
            "offset",
            "byteLength",
            "firstRow",
            "rowCount",
            "layout",
            "flags",
            "reserved",
            "crc32c",
            "slotWidth",
            "indexLength",
            "reserved#2");
    assertContiguous(t, PageEntryLayout.ENTRY_BYTES, "page entry");
    ByteSink out = new ByteSink(PageEntryLayout.ENTRY_BYTES);
    PageEntryLayout.write(
        out,
        new PageEntryLayout.PageEntry(
            0x1000_0000_1000L,
            0x2002,
            0x3000_0003L,
            0x44,
            ColumnLayout.LAYOUT_ZIP_FIXED,
            PageEntryLayout.FLAG_HAS_NULLS,
            0x7777,
            0x88,
            0x99));
    byte[] b = out.toByteArray();
    assertThat(b).hasSize(PageEntryLayout.ENTRY_BYTES);
    assertThat(field(b, t.get("offset"))).isEqualTo(0x1000_0000_1000L);
    assertThat(field(b, t.get("byteLength"))).isEqualTo(0x2002);
    assertThat(field(b, t.get("firstRow"))).isEqualTo(0x3000_0003L);
    assertThat(field(b, t.get("rowCount"))).isEqualTo(0x44);
    assertThat(field(b, t.get("layout"))).isEqualTo(ColumnLayout.LAYOUT_ZIP_FIXED);
    assertThat(field(b, t.get("flags"))).isEqualTo(PageEntryLayout.FLAG_HAS_NULLS);
    assertThat(field(b, t.get("crc32c"))).isEqualTo(0x7777);
    assertThat(field(b, t.get("slotWidth"))).isEqualTo(0x88);
    assertThat(field(b, t.get("indexLength"))).isEqualTo(0x99);
    assertThat(field(b, t.get("reserved"))).isZero();
    assertThat(field(b, t.get("reserved#2"))).isZero();
    assertThat(t.get("layout").meaning())
        .startsWith(
            ColumnLayout.LAYOUT_SECTORS
                + " `SECTORS` (§5.1), "
                + ColumnLayout.LAYOUT_ZIP_FIXED
                + " `ZIP_FIXED` (§5.2), "
                + ColumnLayout.LAYOUT_ZIP_VAR
                + " `ZIP_VAR` (§5.3)");
    assertThat(t.get("flags").meaning())
        .startsWith(
            "bit "
                + Integer.numberOfTrailingZeros(PageEntryLayout.FLAG_HAS_NULLS)
                + " `HAS_NULLS`");
  }

  @Test
  void columnBlockFlags() {
    Map<String, Row> t = table("### 4.1 Block");
    assertThat(t.get("pageCount").offset()).isZero();
    assertThat(t.get("flags").offset()).isEqualTo(4);
    assertThat(t.get("flags").offset() + t.get("flags").size())
        .isEqualTo(ColumnLayout.HEADER_BYTES);
    assertThat(t.get("flags").meaning())
        .startsWith(
            "bit " + Integer.numberOfTrailingZeros(ColumnLayout.FLAG_DICTIONARY) + " `DICTIONARY`")
        .contains(
            "Bit " + Integer.numberOfTrailingZeros(ColumnLayout.FLAG_STATS) + " `STATS` (1.4)");
  }

  @Test
  void statisticsEntry() {
    Map<String, Row> t = table("### 4.5 Statistics section");
    assertThat(t.keySet()).containsExactly("nullCount", "flags");
    assertThat(t.get("nullCount").offset()).isEqualTo(PageStatsLayout.NULL_COUNT_OFFSET);
    assertThat(t.get("nullCount").size()).isEqualTo(4);
    Row flags = t.get("flags");
    assertThat(flags.offset()).isEqualTo(PageStatsLayout.FLAGS_OFFSET);
    assertThat(flags.offset() + flags.size()).isEqualTo(PageStatsLayout.MIN_OFFSET);
    assertThat(flags.meaning())
        .startsWith("bit " + bit(PageStatsLayout.FLAG_RANGE) + " `RANGE`")
        .contains("Bit " + bit(PageStatsLayout.FLAG_NAN) + " `NAN`")
        .contains("Bit " + bit(PageStatsLayout.FLAG_MIN_PREFIX) + " `MIN_PREFIX`")
        .contains("Bit " + bit(PageStatsLayout.FLAG_MAX_PREFIX) + " `MAX_PREFIX`")
        .contains("first " + PageStatsLayout.MAX_VALUE_BYTES + " bytes");
    assertThat(lines)
        .contains("| 4 | statsLength | `u32`, bytes of the entries (everything above) |")
        .contains("| 4 | statsCrc32c | CRC32C of the entries and `statsLength` |");
    assertThat(PageStatsLayout.TRAILER_BYTES).isEqualTo(8);
    String doc = String.join("\n", lines);
    assertThat(doc)
        .contains("| dictionary-encoded, `count ≤ " + PageStatsLayout.MAX_BITMAP_CODES + "` |")
        .contains("| dictionary-encoded, `count > " + PageStatsLayout.MAX_BITMAP_CODES + "` |");
    // The examples, byte for byte.
    PageStatsLayout.Kind i32 = new PageStatsLayout.Kind(PageStatsLayout.Order.SIGNED, 4, 0);
    byte[] b =
        entry(
            i32,
            new PageStatsLayout.Entry(
                3,
                PageStatsLayout.FLAG_RANGE,
                new byte[] {(byte) 0xFB, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF},
                new byte[] {0x2C, 0x03, 0, 0},
                null));
    assertThat(field(b, t.get("nullCount"))).isEqualTo(3);
    assertThat(field(b, flags)).isEqualTo(PageStatsLayout.FLAG_RANGE);
    assertThat(doc).contains("has the entry `" + spaced(b, 4, 1, 4, 4) + "` (13 bytes)");
    PageStatsLayout.Kind codes = PageStatsLayout.Kind.codes(10);
    byte[] c = entry(codes, new PageStatsLayout.Entry(0, 0, null, null, new byte[] {9, 2}));
    assertThat(doc).contains("no nulls: `" + spaced(c, 4, 1, 2) + "`");
  }

  private static int bit(int flag) {
    return Integer.numberOfTrailingZeros(flag);
  }

  private static byte[] entry(PageStatsLayout.Kind kind, PageStatsLayout.Entry e) {
    ByteSink out = new ByteSink();
    PageStatsLayout.write(out, kind, e);
    return out.toByteArray();
  }

  /** Bytes in upper-case hex, the groups of the given sizes separated by " | ". */
  private static String spaced(byte[] b, int... groups) {
    HexFormat hex = HexFormat.ofDelimiter(" ").withUpperCase();
    List<String> parts = new java.util.ArrayList<>();
    int at = 0;
    for (int g : groups) {
      parts.add(hex.formatHex(b, at, at + g));
      at += g;
    }
    assertThat(at).isEqualTo(b.length);
    return String.join(" | ", parts);
  }

  @Test
  void sectorHeader() {
    Map<String, Row> t = table("### 5.1 SECTORS");
    assertThat(t.get("rowCount n").offset()).isEqualTo(SectorLayout.ROW_COUNT_OFFSET);
    assertThat(t.get("codec").offset()).isEqualTo(SectorLayout.CODEC_OFFSET);
    assertThat(t.get("flags").offset()).isEqualTo(SectorLayout.FLAGS_OFFSET);
    assertThat(t.get("bitWidth").offset()).isEqualTo(SectorLayout.BIT_WIDTH_OFFSET);
    assertThat(t.get("valueWidth").offset()).isEqualTo(SectorLayout.VALUE_WIDTH_OFFSET);
    assertThat(t.get("frameLength").offset()).isEqualTo(SectorLayout.FRAME_LENGTH_OFFSET);
    assertThat(t.get("reference").offset()).isEqualTo(SectorLayout.REFERENCE_OFFSET);
    Row reference = t.get("reference");
    assertThat(reference.offset() + reference.size()).isEqualTo(SectorLayout.HEADER_BYTES);
    assertThat(t.get("crc32c").offset()).isEqualTo(SectorLayout.CRC_OFFSET);
    assertThat(t.get("codec").meaning())
        .startsWith(
            SectorLayout.CODEC_FLAT
                + " `FLAT`, "
                + SectorLayout.CODEC_FOR
                + " `FOR` (frame of reference), "
                + SectorLayout.CODEC_RECORDS
                + " `RECORDS`, "
                + SectorLayout.CODEC_LISTS
                + " `LISTS`;");
    assertThat(t.get("flags").meaning())
        .startsWith(
            "bit " + Integer.numberOfTrailingZeros(SectorLayout.FLAG_VALIDITY) + " `VALIDITY`")
        .contains("Bit " + Integer.numberOfTrailingZeros(SectorLayout.FLAG_ZSTD) + " `ZSTD`");
  }

  @Test
  void zipControlBytes() {
    String doc = String.join("\n", lines);
    Map<String, Integer> controls =
        Map.of(
            "`VALID`", ZipLayout.CONTROL_VALID,
            "`VALID` \\| `ZSTD`", ZipLayout.CONTROL_VALID | ZipLayout.CONTROL_ZSTD,
            "`VALID` \\| `SPLIT`", ZipLayout.CONTROL_VALID | ZipLayout.CONTROL_SPLIT,
            "`VALID` \\| `PACKED`", ZipLayout.CONTROL_VALID | ZipLayout.CONTROL_PACKED);
    controls.forEach(
        (name, value) -> {
          Matcher m =
              Pattern.compile("\\| `0x([0-9A-F]{2})` \\(" + Pattern.quote(name) + "\\) \\|")
                  .matcher(doc);
          assertThat(m.find()).as("ZIP_VAR control row %s", name).isTrue();
          assertThat(Integer.parseInt(m.group(1), 16)).as(name).isEqualTo(value);
        });
  }
}

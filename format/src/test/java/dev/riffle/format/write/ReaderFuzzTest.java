package dev.riffle.format.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.riffle.format.ColumnLayout;
import dev.riffle.format.CorruptFileException;
import dev.riffle.format.FileLayout;
import dev.riffle.format.FooterLayout;
import dev.riffle.format.PageStatsLayout;
import dev.riffle.format.SectorLayout;
import dev.riffle.format.ZipLayout;
import dev.riffle.format.encoding.BitPacking;
import dev.riffle.format.encoding.Bitmaps;
import dev.riffle.format.read.FileReader;
import dev.riffle.format.read.PageInfo;
import dev.riffle.format.testing.TypeCase;
import dev.riffle.format.write.CorruptionTest.BytesSource;
import dev.riffle.format.write.CorruptionTest.Observer;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Fuzzes "open + read everything" ({@link CorruptionTest#readEverything}: describe, pages,
 * dictionaries, a full scan, a take of every row in shuffled order checked against the scan, a
 * projected take), and separately a take of every row before any scan, on arbitrary bytes. The only
 * exception allowed is {@link CorruptFileException}, whose message must name the input and an
 * offset inside it; anything else, an {@link OutOfMemoryError}, a leaked Arrow buffer or a hang is
 * a finding. Each input is read as it is and, where that changes it, once more with every checksum
 * recomputed ({@link CorruptionTest#repairChecksums}), so that mutations reach the parsers and
 * decoders behind the checksums.
 *
 * <p>Every {@code mvn test} runs the fuzz test in regression mode over the committed inputs in
 * {@code src/test/resources/dev/riffle/format/write/ReaderFuzzTestInputs/fuzz/} (small valid files
 * of every layout and some damaged ones; regenerate with {@code -Dcorpus.regenerate=true}). To
 * fuzz:
 *
 * <pre>
 * JAZZER_FUZZ=1 mvn -pl format test -Dtest=ReaderFuzzTest#fuzz
 * </pre>
 *
 * for {@code maxDuration}; a crashing input is saved into the inputs directory and so becomes a
 * regression test. The inputs of reader bugs found so far live in {@code ReaderFuzzTestBugs/} (and
 * in the corpus) with a regression test each below.
 */
class ReaderFuzzTest {
  static final Path RESOURCES =
      Path.of("src", "test", "resources", "dev", "riffle", "format", "write");
  static final Path INPUTS = RESOURCES.resolve("ReaderFuzzTestInputs").resolve("fuzz");
  static final Path BUGS = RESOURCES.resolve("ReaderFuzzTestBugs");

  private static final boolean FUZZING =
      System.getenv("JAZZER_FUZZ") != null && !System.getenv("JAZZER_FUZZ").isEmpty();

  @FuzzTest(maxDuration = "3m")
  void fuzz(byte[] input) throws Throwable {
    if (FUZZING) {
      // libFuzzer's -timeout catches hangs; a thread per input would only slow fuzzing down.
      readAsIsAndRepaired(input);
    } else {
      assertTimeoutPreemptively(
          Duration.ofSeconds(10), () -> readAsIsAndRepaired(input), "read hangs");
    }
  }

  static void readAsIsAndRepaired(byte[] input) throws Throwable {
    readAll(input, "fuzz-input.riffle");
    byte[] repaired = input.clone();
    CorruptionTest.repairChecksums(repaired);
    if (!Arrays.equals(input, repaired)) {
      readAll(repaired, "fuzz-input-crc-repaired.riffle");
    }
  }

  /**
   * Reads everything; returns normally if the bytes read or are reported corrupt (with the file
   * name and offset), throws otherwise.
   */
  static void readAll(byte[] bytes, String name) throws Throwable {
    read(bytes, name, false);
    read(bytes, name, true);
  }

  /**
   * One read: everything (scan first), or, with {@code takeFirst}, only a take of all rows, which
   * reaches the take's decoding of records that a scan would have rejected by their page CRC.
   */
  private static void read(byte[] bytes, String name, boolean takeFirst) throws Throwable {
    try (BufferAllocator a = new RootAllocator(CorruptionTest.READ_MEMORY_LIMIT)) {
      BytesSource source = new BytesSource(name, bytes);
      boolean opened = false;
      try (FileReader r = FileReader.open(source, true, a)) {
        opened = true;
        if (takeFirst) {
          long[] rows = CorruptionTest.shuffledRows(r.rowCount(), bytes.length);
          try (VectorSchemaRoot got = r.take(rows, null)) {
            assertThat(got.getRowCount()).isEqualTo(rows.length);
          }
        } else {
          CorruptionTest.readEverything(r, null, Observer.NONE, a);
        }
      } catch (CorruptFileException e) {
        String problem = CorruptionTest.messageProblem(e, name, bytes.length);
        if (problem != null) {
          throw new AssertionError(problem, e);
        }
      }
      if (opened && !source.closed) {
        throw new AssertionError("the reader did not close the source it owns");
      }
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Reader bugs found by these tests, now fixed: each input must read as any other (only
  // CorruptFileException, with the file name and offset).

  @Test
  void zstdExceptionEscapesDecodeVar() throws Throwable {
    readBug("zstd-damaged-frame.riffle");
  }

  @Test
  void allocationSizedBySchemaFixedSizeList() throws Throwable {
    readBug("huge-fixed-size-list.riffle");
  }

  @Test
  void fixedSizeListCapacityOverflows() throws Throwable {
    readBug("fixed-size-list-capacity-overflow.riffle");
  }

  @Test
  void booleanValueErrorLacksFileName() throws Throwable {
    readBug("bool-value-out-of-range.riffle");
  }

  private static void readBug(String file) throws Throwable {
    byte[] bytes = Files.readAllBytes(BUGS.resolve(file));
    assertTimeoutPreemptively(
        Duration.ofSeconds(10), () -> readAsIsAndRepaired(bytes), file + " hangs");
  }

  @Test
  void corpusIsThere() throws IOException {
    try (var files = Files.list(INPUTS)) {
      assertThat(files.count()).as(INPUTS.toString()).isGreaterThanOrEqualTo(10);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // The corpus

  /**
   * Writes the seed corpus and the bug inputs: {@code mvn -pl format test -Dtest=ReaderFuzzTest
   * -Dcorpus.regenerate=true}. Files are deterministic (fixed seeds) and below 30 KB. The bug
   * inputs bool-value-out-of-range and fixed-size-list-capacity-overflow were found by fuzzing and
   * are kept as they are.
   */
  @Test
  @EnabledIfSystemProperty(named = "corpus.regenerate", matches = "true")
  void regenerateCorpus() throws Throwable {
    Files.createDirectories(INPUTS);
    Files.createDirectories(BUGS);
    long seed = 0x5eed;
    try (BufferAllocator a = new RootAllocator()) {
      List<TypeCase> cases = CorruptionTest.fileCases();
      TypeCase all = cases.get(0);
      List<Field> fields = all.schema.getFields();
      TypeCase values =
          new TypeCase("sectors-values", new Schema(fields.subList(0, 4)), List.of(), 0);
      TypeCase records =
          new TypeCase(
              "sectors-records", new Schema(fields.subList(4, fields.size())), List.of(), 0);
      byte[] sectors = write(a, values, 400, seed);
      byte[] sectorRecords = write(a, records, 80, seed);
      byte[] zipFixed = write(a, cases.get(1), 4, seed);
      byte[] zipVar = write(a, cases.get(2), 2, seed);
      byte[] dictionary = write(a, cases.get(3), 200, seed);
      byte[] groups = write(a, cases.get(4), 60, seed);
      byte[] nested = write(a, cases.get(5), 60, seed);
      byte[] empty = write(a, values, 0, seed);
      save("valid-sectors-values", sectors);
      save("valid-sectors-records", sectorRecords);
      save("valid-zip-fixed", zipFixed);
      save("valid-zip-var-zstd", zipVar);
      save("valid-dictionary", dictionary);
      save("valid-groups", groups);
      save("valid-nested", nested);
      save("valid-empty", empty);
      // Damaged copies.
      save("truncated-sectors", Arrays.copyOf(sectors, sectors.length / 2));
      save("flipped-footer-dictionary", flip(dictionary, dictionary.length - 30, 0x10));
      save("flipped-sector-sectors", flip(sectors, FileLayout.DATA_OFFSET + 20, 0x01));
      int zipPage = firstPage(a, zipVar, ColumnLayout.LAYOUT_ZIP_VAR);
      save("flipped-zip-page-zip-var", flip(zipVar, zipPage + 3, 0x80));
      byte[] zeroed = groups.clone();
      Arrays.fill(zeroed, groups.length - 400, groups.length - 200, (byte) 0);
      save("zeroed-metadata-groups", zeroed);
      byte[] repaired = flip(nested, schemaOffset(nested) + 5, 0x04);
      CorruptionTest.repairChecksums(repaired);
      save("schema-flip-crc-repaired-nested", repaired);

      // Bug inputs (found while the bug was there: reads must fail with it, or the input is not
      // what
      // it claims).
      Files.write(BUGS.resolve("zstd-damaged-frame.riffle"), zstdBug(a, zipVar));
      Files.write(BUGS.resolve("huge-fixed-size-list.riffle"), hugeFixedSizeList(zipFixed));
    }
  }

  /**
   * Adds the compressed-sector inputs to the corpus without touching the others: {@code mvn -pl
   * format test -Dtest=ReaderFuzzTest#regenerateSectorZstdCorpus -Dcorpus.regenerate=true}.
   */
  @Test
  @EnabledIfSystemProperty(named = "corpus.regenerate", matches = "true")
  void regenerateSectorZstdCorpus() throws Throwable {
    try (BufferAllocator a = new RootAllocator()) {
      List<TypeCase> cases = CorruptionTest.fileCases();
      TypeCase zstd = cases.get(cases.size() - 1);
      assertThat(zstd.name).isEqualTo("sectors_zstd");
      byte[] valid = write(a, zstd, 250, 0x5eed);
      save("valid-sectors-zstd", valid);
      save("truncated-sectors-zstd", Arrays.copyOf(valid, valid.length / 2));
      int page = firstCompressedSector(a, valid);
      byte[] flipped = flip(valid, page + SectorLayout.HEADER_BYTES + 20, 0x21);
      CorruptionTest.repairChecksums(flipped);
      save("flipped-frame-crc-repaired-sectors-zstd", flipped);
      byte[] length = flip(valid, page + SectorLayout.FRAME_LENGTH_OFFSET, 0x03);
      CorruptionTest.repairChecksums(length);
      save("frame-length-crc-repaired-sectors-zstd", length);
    }
  }

  /**
   * Adds the format 1.4 inputs (record CRCs, packed float lists) to the corpus without touching the
   * others: {@code mvn -pl format test -Dtest=ReaderFuzzTest#regenerateCountsCorpus
   * -Dcorpus.regenerate=true}.
   */
  @Test
  @EnabledIfSystemProperty(named = "corpus.regenerate", matches = "true")
  void regenerateCountsCorpus() throws Throwable {
    try (BufferAllocator a = new RootAllocator()) {
      TypeCase counts =
          CorruptionTest.fileCases().stream()
              .filter(t -> t.name.equals("zip_counts"))
              .findFirst()
              .orElseThrow();
      byte[] valid = write(a, counts, 2, 0x5eed);
      save("valid-zip-counts", valid);
      save("truncated-zip-counts", Arrays.copyOf(valid, valid.length / 2));
      // The first packed record of the float64 counts column alone: 09 | varint n (2 bytes) | form
      // | min | width | excess bits, then the record CRC.
      int record = -1;
      try (FileReader r = FileReader.open(new BytesSource("x", valid), true, a)) {
        for (PageInfo p : r.pages(1)) {
          for (int k = 0; k < p.rowCount() && record < 0; k++) {
            int at = (int) (p.offset() + p.index().get(k));
            if (valid[at] == (ZipLayout.CONTROL_VALID | ZipLayout.CONTROL_PACKED)) {
              record = at;
            }
          }
        }
      }
      assertThat(record).as("a packed counts64 record").isPositive();
      assertThat(valid[record + 3]).as("form INTEGERS").isEqualTo((byte) 1);
      byte[] form = flip(valid, record + 3, 0x03);
      CorruptionTest.repairChecksums(form);
      save("form-crc-repaired-zip-counts", form);
      byte[] min = flip(valid, record + 4, 0x41);
      CorruptionTest.repairChecksums(min);
      save("min-crc-repaired-zip-counts", min);
      byte[] bits = flip(valid, record + 12, 0x10);
      CorruptionTest.repairChecksums(bits);
      save("flipped-bits-crc-repaired-zip-counts", bits);
      // Not repaired: the record CRC must catch it.
      save("flipped-record-zip-counts", flip(valid, record + 12, 0x10));
    }
  }

  /**
   * Adds the inputs of packable lists of nullable items (format 1.4) to the corpus without touching
   * the others: {@code mvn -pl format test -Dtest=ReaderFuzzTest#regenerateNullableItemsCorpus
   * -Dcorpus.regenerate=true}.
   */
  @Test
  @EnabledIfSystemProperty(named = "corpus.regenerate", matches = "true")
  void regenerateNullableItemsCorpus() throws Throwable {
    try (BufferAllocator a = new RootAllocator()) {
      TypeCase nullable =
          CorruptionTest.fileCases().stream()
              .filter(t -> t.name.equals("zip_nullable_items"))
              .findFirst()
              .orElseThrow();
      byte[] valid = write(a, nullable, 2, 0x5eed);
      save("valid-zip-nullable-items", valid);
      save("truncated-zip-nullable-items", Arrays.copyOf(valid, valid.length / 2));
      // The corruption campaign's case flips every byte of larger files; here, one in the middle
      // behind repaired checksums.
      byte[] mid = flip(valid, valid.length / 2, 0x11);
      CorruptionTest.repairChecksums(mid);
      save("middle-crc-repaired-zip-nullable-items", mid);
    }
  }

  /**
   * Adds the inputs of LISTS sectors of lists with nullable items (format 1.4) to the corpus
   * without touching the others: {@code mvn -pl format test
   * -Dtest=ReaderFuzzTest#regenerateNullableListSectorsCorpus -Dcorpus.regenerate=true}.
   */
  @Test
  @EnabledIfSystemProperty(named = "corpus.regenerate", matches = "true")
  void regenerateNullableListSectorsCorpus() throws Throwable {
    try (BufferAllocator a = new RootAllocator()) {
      TypeCase lists =
          CorruptionTest.fileCases().stream()
              .filter(t -> t.name.equals("sectors_lists_nullable_items"))
              .findFirst()
              .orElseThrow();
      byte[] valid = write(a, lists, 300, 0x5eed);
      save("valid-sectors-lists-nullable-items", valid);
      save("truncated-sectors-lists-nullable-items", Arrays.copyOf(valid, valid.length / 2));
      int sector = FileLayout.DATA_OFFSET;
      while (valid[sector + SectorLayout.CODEC_OFFSET] != SectorLayout.CODEC_LISTS) {
        sector += FileLayout.SECTOR_BYTES;
      }
      // The packed counts and the items of the first LISTS sector.
      byte[] counts = flip(valid, sector + SectorLayout.HEADER_BYTES + 12, 0x30);
      CorruptionTest.repairChecksums(counts);
      save("flipped-counts-crc-repaired-sectors-lists-nullable-items", counts);
      byte[] mid = flip(valid, valid.length / 2, 0x11);
      CorruptionTest.repairChecksums(mid);
      save("middle-crc-repaired-sectors-lists-nullable-items", mid);
    }
  }

  /**
   * Adds the inputs of LISTS sectors with packed decimal items (format 1.4) to the corpus without
   * touching the others: {@code mvn -pl format test
   * -Dtest=ReaderFuzzTest#regenerateDecimalItemsCorpus -Dcorpus.regenerate=true}.
   */
  @Test
  @EnabledIfSystemProperty(named = "corpus.regenerate", matches = "true")
  void regenerateDecimalItemsCorpus() throws Throwable {
    try (BufferAllocator a = new RootAllocator()) {
      TypeCase lists =
          CorruptionTest.fileCases().stream()
              .filter(t -> t.name.equals("sectors_lists_decimals"))
              .findFirst()
              .orElseThrow();
      byte[] valid = write(a, lists, 1500, 0x5eed);
      save("valid-sectors-lists-decimals", valid);
      save("truncated-sectors-lists-decimals", Arrays.copyOf(valid, valid.length / 2));
      int sector = FileLayout.DATA_OFFSET;
      while ((valid[sector + SectorLayout.FLAGS_OFFSET] & SectorLayout.FLAG_PACKED_ITEMS) == 0) {
        sector += FileLayout.SECTOR_BYTES;
      }
      // The item header follows the bitmap and the counts: damage the flags, the header's scale,
      // item bits and base, and the items, behind repaired checksums.
      ByteBuffer h = ByteBuffer.wrap(valid, sector, 4096).slice().order(ByteOrder.LITTLE_ENDIAN);
      int n = h.getShort(0) & 0xFFFF;
      int items = SectorLayout.HEADER_BYTES;
      int rows = n;
      if ((h.get(SectorLayout.FLAGS_OFFSET) & SectorLayout.FLAG_VALIDITY) != 0) {
        rows = Bitmaps.rank(h, items, n);
        items += Bitmaps.bytes(n);
      }
      items += BitPacking.packedBytes(rows, h.get(SectorLayout.BIT_WIDTH_OFFSET));
      for (int at :
          new int[] {SectorLayout.FLAGS_OFFSET, items, items + 1, items + 5, items + 200}) {
        byte[] damaged = flip(valid, sector + at, 0x21);
        CorruptionTest.repairChecksums(damaged);
        save("flipped-" + at + "-crc-repaired-sectors-lists-decimals", damaged);
      }
    }
  }

  /**
   * Adds the inputs of packed float lists in form DICTIONARY (format 1.4) to the corpus without
   * touching the others: {@code mvn -pl format test
   * -Dtest=ReaderFuzzTest#regenerateNormalizedCorpus -Dcorpus.regenerate=true}.
   */
  @Test
  @EnabledIfSystemProperty(named = "corpus.regenerate", matches = "true")
  void regenerateNormalizedCorpus() throws Throwable {
    try (BufferAllocator a = new RootAllocator()) {
      TypeCase normalized =
          CorruptionTest.fileCases().stream()
              .filter(t -> t.name.equals("zip_normalized"))
              .findFirst()
              .orElseThrow();
      byte[] valid = write(a, normalized, 2, 0x5eed);
      save("valid-zip-normalized", valid);
      save("truncated-zip-normalized", Arrays.copyOf(valid, valid.length / 2));
      // The first packed record of the float64 column alone: 09 | varint n (2 bytes) | form 2 |
      // varint d (1 byte: few entries) | d entries of 8 bytes | width | indices, then the CRC.
      int record = -1;
      try (FileReader r = FileReader.open(new BytesSource("x", valid), true, a)) {
        for (PageInfo p : r.pages(1)) {
          for (int k = 0; k < p.rowCount() && record < 0; k++) {
            int at = (int) (p.offset() + p.index().get(k));
            if (valid[at] == (ZipLayout.CONTROL_VALID | ZipLayout.CONTROL_PACKED)) {
              record = at;
            }
          }
        }
      }
      assertThat(record).as("a packed normalised record").isPositive();
      assertThat(valid[record + 3]).as("form DICTIONARY").isEqualTo((byte) 2);
      int d = valid[record + 4];
      assertThat(d).as("entries").isBetween(2, 127);
      int width = record + 5 + 8 * d;
      byte[] entries = flip(valid, record + 4, 0x01);
      CorruptionTest.repairChecksums(entries);
      save("entries-crc-repaired-zip-normalized", entries);
      byte[] w = flip(valid, width, 0x10);
      CorruptionTest.repairChecksums(w);
      save("width-crc-repaired-zip-normalized", w);
      byte[] indices = flip(valid, width + 1, 0xFF);
      CorruptionTest.repairChecksums(indices);
      save("indices-crc-repaired-zip-normalized", indices);
      // Not repaired: the record CRC must catch it.
      save("flipped-record-zip-normalized", flip(valid, width + 1, 0x10));
    }
  }

  /**
   * Adds the page statistics inputs (format 1.4) to the corpus without touching the others: {@code
   * mvn -pl format test -Dtest=ReaderFuzzTest#regenerateStatsCorpus -Dcorpus.regenerate=true}.
   */
  @Test
  @EnabledIfSystemProperty(named = "corpus.regenerate", matches = "true")
  void regenerateStatsCorpus() throws Throwable {
    try (BufferAllocator a = new RootAllocator()) {
      List<TypeCase> cases = CorruptionTest.fileCases();
      assertThat(cases.get(0).name).isEqualTo("sectors");
      // Ints, a bool, floats and text: statistics with bounds of most kinds.
      List<Field> fields = cases.get(0).schema.getFields();
      TypeCase scalars = new TypeCase("page-stats", new Schema(fields.subList(0, 5)), List.of(), 0);
      byte[] valid = write(a, scalars, 200, 0x5eed);
      save("valid-page-stats", valid);
      ByteBuffer b = ByteBuffer.wrap(valid).order(ByteOrder.LITTLE_ENDIAN);
      int footer = valid.length - FooterLayout.FOOTER_BYTES;
      int entry = (int) b.getLong(footer + FooterLayout.FOOTER_DIRECTORY_OFFSET);
      int blockEnd = (int) (b.getLong(entry) + b.getLong(entry + 8));
      int trailer = blockEnd - 4 - PageStatsLayout.TRAILER_BYTES;
      // The first entry of the first column (i32): null count, flags, min, max.
      int stats = trailer - b.getInt(trailer);
      // Not repaired: the statistics CRC must catch it.
      save("flipped-min-page-stats", flip(valid, stats + 5, 0x40));
      byte[] nulls = flip(valid, stats + 3, 0x01);
      CorruptionTest.repairChecksums(nulls);
      save("null-count-crc-repaired-page-stats", nulls);
      byte[] flags = flip(valid, stats + 4, 0x06);
      CorruptionTest.repairChecksums(flags);
      save("flags-crc-repaired-page-stats", flags);
      byte[] max = flip(valid, stats + 12, 0x80);
      CorruptionTest.repairChecksums(max);
      save("max-crc-repaired-page-stats", max);
      save("truncated-page-stats", Arrays.copyOf(valid, valid.length - 40));
    }
  }

  /**
   * Adds the split-record inputs to the corpus without touching the others: {@code mvn -pl format
   * test -Dtest=ReaderFuzzTest#regenerateSplitCorpus -Dcorpus.regenerate=true}.
   */
  @Test
  @EnabledIfSystemProperty(named = "corpus.regenerate", matches = "true")
  void regenerateSplitCorpus() throws Throwable {
    try (BufferAllocator a = new RootAllocator()) {
      TypeCase split =
          CorruptionTest.fileCases().stream()
              .filter(t -> t.name.equals("zip_split"))
              .findFirst()
              .orElseThrow();
      byte[] valid = write(a, split, 8, 0x5eed);
      save("valid-zip-split", valid);
      save("truncated-zip-split", Arrays.copyOf(valid, valid.length / 2));
      int record = firstSplitRecord(a, valid);
      // The stride, the first plane's frame length, and a byte inside the planes.
      byte[] stride = flip(valid, record + 1, 0x0C);
      CorruptionTest.repairChecksums(stride);
      save("stride-crc-repaired-zip-split", stride);
      byte[] frame = flip(valid, record + 4, 0x01);
      CorruptionTest.repairChecksums(frame);
      save("frame-length-crc-repaired-zip-split", frame);
      byte[] plane = flip(valid, record + 20, 0x40);
      CorruptionTest.repairChecksums(plane);
      save("flipped-plane-crc-repaired-zip-split", plane);
    }
  }

  /**
   * Adds the LISTS-sector inputs to the corpus without touching the others: {@code mvn -pl format
   * test -Dtest=ReaderFuzzTest#regenerateListsCorpus -Dcorpus.regenerate=true}.
   */
  @Test
  @EnabledIfSystemProperty(named = "corpus.regenerate", matches = "true")
  void regenerateListsCorpus() throws Throwable {
    try (BufferAllocator a = new RootAllocator()) {
      TypeCase lists =
          CorruptionTest.fileCases().stream()
              .filter(t -> t.name.equals("sectors_lists"))
              .findFirst()
              .orElseThrow();
      byte[] valid = write(a, lists, 300, 0x5eed);
      save("valid-sectors-lists", valid);
      save("truncated-sectors-lists", Arrays.copyOf(valid, valid.length / 2));
      int sector = FileLayout.DATA_OFFSET;
      assertThat(valid[sector + SectorLayout.CODEC_OFFSET])
          .isEqualTo((byte) SectorLayout.CODEC_LISTS);
      // The count width, the item width, and the packed counts.
      byte[] width = flip(valid, sector + SectorLayout.BIT_WIDTH_OFFSET, 0x08);
      CorruptionTest.repairChecksums(width);
      save("count-width-crc-repaired-sectors-lists", width);
      byte[] item = flip(valid, sector + SectorLayout.VALUE_WIDTH_OFFSET, 0x02);
      CorruptionTest.repairChecksums(item);
      save("item-width-crc-repaired-sectors-lists", item);
      byte[] counts = flip(valid, sector + SectorLayout.HEADER_BYTES + 40, 0x30);
      CorruptionTest.repairChecksums(counts);
      save("flipped-counts-crc-repaired-sectors-lists", counts);
    }
  }

  /**
   * Adds the packed-record inputs to the corpus without touching the others: {@code mvn -pl format
   * test -Dtest=ReaderFuzzTest#regeneratePackedCorpus -Dcorpus.regenerate=true}.
   */
  @Test
  @EnabledIfSystemProperty(named = "corpus.regenerate", matches = "true")
  void regeneratePackedCorpus() throws Throwable {
    try (BufferAllocator a = new RootAllocator()) {
      TypeCase packed =
          CorruptionTest.fileCases().stream()
              .filter(t -> t.name.equals("zip_packed"))
              .findFirst()
              .orElseThrow();
      byte[] valid = write(a, packed, 3, 0x5eed);
      save("valid-zip-packed", valid);
      save("truncated-zip-packed", Arrays.copyOf(valid, valid.length / 2));
      int record = firstRecord(a, valid, ZipLayout.CONTROL_VALID | ZipLayout.CONTROL_PACKED);
      // The item count, the first item, and a byte inside the packed deltas.
      byte[] count = flip(valid, record + 2, 0x02);
      CorruptionTest.repairChecksums(count);
      save("count-crc-repaired-zip-packed", count);
      byte[] first = flip(valid, record + 3, 0x41);
      CorruptionTest.repairChecksums(first);
      save("first-crc-repaired-zip-packed", first);
      byte[] deltas = flip(valid, record + 30, 0x18);
      CorruptionTest.repairChecksums(deltas);
      save("flipped-deltas-crc-repaired-zip-packed", deltas);
    }
  }

  private static int firstSplitRecord(BufferAllocator a, byte[] b) throws IOException {
    return firstRecord(a, b, ZipLayout.CONTROL_VALID | ZipLayout.CONTROL_SPLIT);
  }

  private static int firstRecord(BufferAllocator a, byte[] b, int control) throws IOException {
    try (FileReader r = FileReader.open(new BytesSource("x", b), true, a)) {
      for (int c = 0; c < r.schema().columns().size(); c++) {
        for (PageInfo p : r.pages(c)) {
          if (p.layout() != ColumnLayout.LAYOUT_ZIP_VAR) {
            continue;
          }
          for (int k = 0; k < p.rowCount(); k++) {
            int at = (int) (p.offset() + p.index().get(k));
            if (b[at] == control) {
              return at;
            }
          }
        }
      }
    }
    throw new AssertionError("no record with control " + control);
  }

  private static int firstCompressedSector(BufferAllocator a, byte[] b) throws IOException {
    try (FileReader r = FileReader.open(new BytesSource("x", b), true, a)) {
      for (int c = 0; c < r.schema().columns().size(); c++) {
        for (PageInfo p : r.pages(c)) {
          if (p.layout() != ColumnLayout.LAYOUT_SECTORS) {
            continue;
          }
          for (long at = p.offset(); at < p.offset() + p.byteLength(); at += 4096) {
            if ((b[(int) at + SectorLayout.FLAGS_OFFSET] & SectorLayout.FLAG_ZSTD) != 0) {
              return (int) at;
            }
          }
        }
      }
    }
    throw new AssertionError("no compressed sector");
  }

  private static byte[] write(BufferAllocator a, TypeCase c, int rows, long seed)
      throws IOException {
    return CorruptionTest.writeFile(c, rows, seed, CorruptionTest.NULL_RATE, a);
  }

  private static void save(String name, byte[] bytes) throws IOException {
    System.out.println(name + ": " + bytes.length + " bytes");
    assertThat(bytes.length).as(name).isLessThan(30_000);
    Files.write(INPUTS.resolve(name + ".riffle"), bytes);
  }

  private static byte[] flip(byte[] b, int at, int mask) {
    byte[] c = b.clone();
    c[at] ^= (byte) mask;
    return c;
  }

  private static int schemaOffset(byte[] b) {
    return (int)
        ByteBuffer.wrap(b)
            .order(ByteOrder.LITTLE_ENDIAN)
            .getLong(b.length - FooterLayout.FOOTER_BYTES + FooterLayout.FOOTER_SCHEMA_OFFSET);
  }

  private static int firstPage(BufferAllocator a, byte[] b, int layout) throws IOException {
    try (FileReader r = FileReader.open(new BytesSource("x", b), true, a)) {
      for (int c = 0; c < r.schema().columns().size(); c++) {
        for (PageInfo p : r.pages(c)) {
          if (p.layout() == layout) {
            return (int) p.offset();
          }
        }
      }
    }
    throw new AssertionError("no page of layout " + layout);
  }

  /** A zstd record with one byte of its frame flipped, every checksum repaired. */
  private static byte[] zstdBug(BufferAllocator a, byte[] zipVar) throws Throwable {
    int page = firstPage(a, zipVar, ColumnLayout.LAYOUT_ZIP_VAR);
    for (int at = page + 1 + 6; at < page + 4096; at++) {
      byte[] b = flip(zipVar, at, 0x55);
      CorruptionTest.repairChecksums(b);
      try {
        readAll(b, "probe");
      } catch (RuntimeException e) {
        if (e.getClass().getName().equals("com.github.luben.zstd.ZstdException")) {
          return b;
        }
      }
    }
    throw new AssertionError("no flip shows the zstd bug");
  }

  /**
   * The zip-fixed file (4 rows) with its FixedSizeList(300) "vec300" declared FixedSizeList(2^27):
   * a scan batch of 4 rows then needs 2 GiB of floats.
   */
  private static byte[] hugeFixedSizeList(byte[] zipFixed) {
    byte[] b = zipFixed.clone();
    int from = schemaOffset(b);
    byte[] name = "vec300".getBytes(StandardCharsets.UTF_8);
    for (int i = from; i < b.length - name.length; i++) {
      if (Arrays.equals(b, i, i + name.length, name, 0, name.length)) {
        ByteBuffer buf = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
        int type = i + name.length;
        assertThat(b[type]).as("type code").isEqualTo((byte) 14);
        assertThat(buf.getInt(type + 1)).isEqualTo(300);
        buf.putInt(type + 1, 1 << 27);
        CorruptionTest.repairChecksums(b);
        return b;
      }
    }
    throw new AssertionError("no vec300 in the schema");
  }
}

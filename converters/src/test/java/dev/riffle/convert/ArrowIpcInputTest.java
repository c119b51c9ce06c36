package dev.riffle.convert;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.flatbuffers.FlatBufferBuilder;
import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.storage.LocalStorage;
import dev.riffle.format.testing.Seed;
import dev.riffle.format.testing.SeedExtension;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.apache.arrow.flatbuf.MessageHeader;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.ipc.ArrowWriter;
import org.apache.arrow.vector.ipc.ReadChannel;
import org.apache.arrow.vector.ipc.message.ArrowBlock;
import org.apache.arrow.vector.ipc.message.ArrowFooter;
import org.apache.arrow.vector.ipc.message.MessageMetadataResult;
import org.apache.arrow.vector.ipc.message.MessageSerializer;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.ByteArrayReadableSeekableByteChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Truncated and damaged Arrow IPC inputs fail naming the input and publish nothing; whole inputs
 * from Arrow Java and from arrow-js (a second implementation) convert exactly (issue #15 item 8).
 */
@ExtendWith(SeedExtension.class)
class ArrowIpcInputTest {
  private static final int[] BATCH_ROWS = {1000, 700, 1300, 500};
  private static final int ROWS = Arrays.stream(BATCH_ROWS).sum();
  private static final String[] LABELS = {"cat", "dog", "emu"};

  @TempDir Path dir;
  BufferAllocator allocator;
  int converts;

  @BeforeEach
  void open() {
    allocator = new RootAllocator();
  }

  @AfterEach
  void close() {
    // Fails the test if a failed conversion left Arrow buffers behind.
    allocator.close();
  }

  /** Row i: id i, name "n" + i or null when i % 7 == 0, label LABELS[i % 3] (a dictionary). */
  private byte[] javaIpc(boolean fileFormat) throws IOException {
    DictionaryEncoding enc = new DictionaryEncoding(1, false, new ArrowType.Int(32, true));
    Schema schema =
        new Schema(
            List.of(
                Field.notNullable("id", new ArrowType.Int(64, true)),
                Field.nullable("name", ArrowType.Utf8.INSTANCE),
                new Field("label", new FieldType(true, new ArrowType.Int(32, true), enc), null)));
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (VarCharVector dict = new VarCharVector("label", allocator);
        VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
      for (int i = 0; i < LABELS.length; i++) {
        dict.setSafe(i, LABELS[i].getBytes(StandardCharsets.UTF_8));
      }
      dict.setValueCount(LABELS.length);
      DictionaryProvider.MapDictionaryProvider provider =
          new DictionaryProvider.MapDictionaryProvider();
      provider.put(new Dictionary(dict, enc));
      try (ArrowWriter w =
          fileFormat
              ? new ArrowFileWriter(root, provider, Channels.newChannel(bytes))
              : new ArrowStreamWriter(root, provider, Channels.newChannel(bytes))) {
        w.start();
        int row = 0;
        for (int n : BATCH_ROWS) {
          root.allocateNew();
          BigIntVector id = (BigIntVector) root.getVector("id");
          VarCharVector name = (VarCharVector) root.getVector("name");
          IntVector label = (IntVector) root.getVector("label");
          for (int i = 0; i < n; i++, row++) {
            id.setSafe(i, row);
            if (row % 7 != 0) {
              name.setSafe(i, ("n" + row).getBytes(StandardCharsets.UTF_8));
            }
            label.setSafe(i, row % 3);
          }
          root.setRowCount(n);
          w.writeBatch();
        }
        w.end();
      }
    }
    return bytes.toByteArray();
  }

  private static List<List<Object>> expectedRows() {
    List<List<Object>> rows = new ArrayList<>();
    for (int i = 0; i < ROWS; i++) {
      // A dataset numbers a dictionary's values in the order they first appear.
      rows.add(Arrays.asList((long) i, i % 7 == 0 ? null : "n" + i, (long) (i % 3)));
    }
    return rows;
  }

  /** Each record batch's message as {start, end of metadata, end of body}, in the input. */
  private static List<long[]> batchSpans(byte[] bytes, boolean fileFormat) throws IOException {
    List<long[]> spans = new ArrayList<>();
    if (fileFormat) {
      try (BufferAllocator a = new RootAllocator();
          ArrowFileReader r =
              new ArrowFileReader(new ByteArrayReadableSeekableByteChannel(bytes), a)) {
        for (ArrowBlock b : r.getRecordBlocks()) {
          long meta = b.getOffset() + b.getMetadataLength();
          spans.add(new long[] {b.getOffset(), meta, meta + b.getBodyLength()});
        }
      }
      return spans;
    }
    InputStream in = new ByteArrayInputStream(bytes);
    ReadChannel ch = new ReadChannel(Channels.newChannel(in));
    while (true) {
      long start = ch.bytesRead();
      MessageMetadataResult m = MessageSerializer.readMessage(ch);
      if (m == null) {
        return spans;
      }
      long meta = ch.bytesRead();
      long body = m.getMessageBodyLength();
      ch.readFully(ByteBuffer.allocate((int) body));
      if (m.headerType() == MessageHeader.RecordBatch) {
        spans.add(new long[] {start, meta, meta + body});
      }
    }
  }

  private ConvertResult convert(Path input, Path out) throws IOException {
    try (LocalStorage s = new LocalStorage(out)) {
      return ArrowIpcConverter.convert(
          SourceFile.local(input), s, allocator, ConvertOptions.defaults());
    }
  }

  /** Converts bytes that must fail: one line naming the input, nothing published or left. */
  private String fails(byte[] bytes, String fileName) throws IOException {
    Path input = dir.resolve(fileName);
    Files.write(input, bytes);
    Path out = dir.resolve("out-" + converts++);
    Throwable t = null;
    try {
      convert(input, out);
    } catch (Throwable e) {
      t = e;
    }
    assertThat(t).as("converting %s", fileName).isInstanceOf(InputException.class);
    String message = t.getMessage();
    assertThat(message).startsWith(input + ": ").doesNotContain("\n");
    assertNothingLeft(out);
    return message;
  }

  private static void assertNothingLeft(Path out) throws IOException {
    if (Files.exists(out)) {
      try (LocalStorage s = new LocalStorage(out)) {
        assertThat(Dataset.versions(s)).isEmpty();
      }
      try (Stream<Path> files = Files.walk(out)) {
        assertThat(files.filter(Files::isRegularFile)).isEmpty();
      }
    }
  }

  private List<List<Object>> read(Path out) throws IOException {
    try (LocalStorage s = new LocalStorage(out)) {
      return DatasetRows.read(s, allocator);
    }
  }

  @Test
  void wholeJavaFileAndStreamConvertExactly() throws IOException {
    for (boolean fileFormat : new boolean[] {true, false}) {
      Path in = dir.resolve(fileFormat ? "whole.arrow" : "whole.arrows");
      Files.write(in, javaIpc(fileFormat));
      Path out = dir.resolve("whole-" + fileFormat);
      assertThat(convert(in, out).rows()).isEqualTo(ROWS);
      assertThat(read(out)).isEqualTo(expectedRows());
    }
  }

  @Test
  void fileCutAtEveryBatchBoundaryFailsNamingTheOffset() throws IOException {
    byte[] bytes = javaIpc(true);
    List<long[]> spans = batchSpans(bytes, true);
    assertThat(spans).hasSize(BATCH_ROWS.length);
    // After each complete batch, including the last: a sequential reader sees a whole stream.
    for (long[] span : spans) {
      int cut = (int) span[2];
      String m = fails(Arrays.copyOf(bytes, cut), "cut-" + cut + ".arrow");
      assertThat(m)
          .contains(
              "incomplete Arrow IPC file: it ends at offset "
                  + cut
                  + " without its footer and closing ARROW1 magic");
    }
  }

  @Test
  void streamCutAtEveryBatchBoundaryFailsNamingTheOffsetAndRows() throws IOException {
    byte[] bytes = javaIpc(false);
    List<long[]> spans = batchSpans(bytes, false);
    assertThat(spans).hasSize(BATCH_ROWS.length);
    long rows = 0;
    for (int k = 0; k < spans.size(); k++) {
      rows += BATCH_ROWS[k];
      int cut = (int) spans.get(k)[2];
      String m = fails(Arrays.copyOf(bytes, cut), "cut-" + cut + ".arrows");
      assertThat(m)
          .contains(
              "incomplete Arrow IPC stream: it ends at offset "
                  + cut
                  + " without its end-of-stream marker")
          .contains((k + 1) + (k == 0 ? " record batch (" : " record batches (") + rows + " rows)");
    }
    // The marker is all that the whole stream adds to the last cut.
    assertThat(bytes.length - spans.get(spans.size() - 1)[2]).isEqualTo(8);
  }

  @Test
  void cutInsideABatchFails() throws IOException {
    for (boolean fileFormat : new boolean[] {true, false}) {
      byte[] bytes = javaIpc(fileFormat);
      long[] second = batchSpans(bytes, fileFormat).get(1);
      int[] cuts = {
        (int) second[0] + 3, // inside the length prefix
        (int) (second[0] + second[1]) / 2, // inside the metadata
        (int) (second[1] + second[2]) / 2 // inside the body
      };
      for (int cut : cuts) {
        String m = fails(Arrays.copyOf(bytes, cut), "mid-" + cut + (fileFormat ? ".arrow" : ""));
        assertThat(m)
            .contains(
                fileFormat
                    ? "incomplete Arrow IPC file: it ends at offset " + cut
                    : "incomplete Arrow IPC stream: it ends at offset " + cut)
            .contains("truncated");
      }
    }
  }

  @Test
  void footerThatLostABatchFails() throws IOException {
    byte[] bytes = javaIpc(true);
    ArrowFooter footer;
    try (BufferAllocator a = new RootAllocator();
        ArrowFileReader r =
            new ArrowFileReader(new ByteArrayReadableSeekableByteChannel(bytes), a)) {
      List<ArrowBlock> batches = r.getRecordBlocks();
      // The third batch is gone from the footer, as a damaged vector length could make it.
      List<ArrowBlock> kept = new ArrayList<>(batches);
      kept.remove(2);
      footer = new ArrowFooter(r.getVectorSchemaRoot().getSchema(), r.getDictionaryBlocks(), kept);
    }
    ByteBuffer tail = ByteBuffer.wrap(bytes, bytes.length - 10, 4).order(ByteOrder.LITTLE_ENDIAN);
    int dataEnd = bytes.length - 10 - tail.getInt();
    FlatBufferBuilder fb = new FlatBufferBuilder();
    fb.finish(footer.writeTo(fb));
    byte[] footerBytes = fb.sizedByteArray();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(bytes, 0, dataEnd);
    out.write(footerBytes);
    out.write(
        ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(footerBytes.length).array());
    out.write("ARROW1".getBytes(StandardCharsets.US_ASCII));
    long[] lost = batchSpans(bytes, true).get(2);
    assertThat(fails(out.toByteArray(), "lost.arrow"))
        .contains(
            "damaged Arrow IPC file: its footer accounts for nothing between offsets "
                + lost[0]
                + " and "
                + lost[2]);
  }

  @Test
  void streamThatGoesOnAfterItsEndFails() throws IOException {
    byte[] one = javaIpc(false);
    byte[] two = Arrays.copyOf(one, 2 * one.length);
    System.arraycopy(one, 0, two, one.length, one.length);
    assertThat(fails(two, "twice.arrows"))
        .contains(
            "damaged Arrow IPC stream: it has an end-of-stream marker at offset "
                + (one.length - 8)
                + ", but goes on to offset "
                + two.length);
  }

  /** The offset of the first int64 equal to {@code value} in [from, to), little-endian. */
  private static int findLong(byte[] bytes, long from, long to, long value) {
    ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    for (int i = (int) from; i + 8 <= to; i++) {
      if (b.getLong(i) == value) {
        return i;
      }
    }
    throw new AssertionError("no " + value + " in [" + from + ", " + to + ")");
  }

  @Test
  void flippedRowCountInBatchMetadataFailsNamingTheBatch() throws IOException {
    for (boolean fileFormat : new boolean[] {true, false}) {
      byte[] bytes = javaIpc(fileFormat);
      long[] second = batchSpans(bytes, fileFormat).get(1);
      // The batch's length (or a field node's length: both say 700 rows) in its flatbuffer.
      int at = findLong(bytes, second[0], second[1], BATCH_ROWS[1]);
      for (int shift : new int[] {1, 4, 7}) {
        byte[] damaged = bytes.clone();
        damaged[at + shift] ^= 0x40;
        String m = fails(damaged, "flip-" + shift + (fileFormat ? ".arrow" : ".arrows"));
        assertThat(m)
            .contains(fileFormat ? "damaged Arrow IPC file" : "damaged Arrow IPC stream")
            .contains("offset " + second[0])
            .contains("1 record batch (" + BATCH_ROWS[0] + " rows) came before it");
      }
    }
  }

  /**
   * One flipped byte anywhere in a batch's metadata, at seeded offsets: the input converts with all
   * its rows (the byte did not matter, or the damage is in values, which Arrow IPC cannot check) or
   * fails naming itself; never another exception, a leak, or a partial dataset.
   */
  @Test
  void flippedMetadataBytesNeverEscape(@Seed long seed) throws IOException {
    int failed = flips(seed, true);
    // Most metadata bytes matter: a campaign that never fails flips nothing.
    assertThat(failed).isGreaterThan(2 * 60 / 4);
  }

  /**
   * As {@link #flippedMetadataBytesNeverEscape}, anywhere in the input: the footer, the schema,
   * dictionaries, the end-of-stream marker, values. A damaged footer or message length must not
   * drop batches silently: the row count is kept, or the conversion fails.
   */
  @Test
  void flippedBytesAnywhereNeverLoseRows(@Seed long seed) throws IOException {
    flips(seed, false);
  }

  /** Converts 60 seeded one-byte mutants of each format; returns how many failed. */
  private int flips(long seed, boolean metadataOnly) throws IOException {
    Random random = new Random(seed);
    int failed = 0;
    int tries = 0;
    for (boolean fileFormat : new boolean[] {true, false}) {
      byte[] bytes = javaIpc(fileFormat);
      List<long[]> spans = batchSpans(bytes, fileFormat);
      for (int t = 0; t < 60; t++, tries++) {
        long[] span = spans.get(random.nextInt(spans.size()));
        int at =
            metadataOnly
                ? (int) (span[0] + random.nextInt((int) (span[1] - span[0])))
                : random.nextInt(bytes.length);
        byte[] damaged = bytes.clone();
        damaged[at] ^= (byte) (1 + random.nextInt(255));
        Path input = dir.resolve("flip-" + tries + (fileFormat ? ".arrow" : ".arrows"));
        Files.write(input, damaged);
        Path out = dir.resolve("out-" + converts++);
        try {
          assertThat(convert(input, out).rows())
              .as("rows of %s, byte %d flipped", input, at)
              .isEqualTo(ROWS);
        } catch (InputException e) {
          failed++;
          assertThat(e.getMessage()).startsWith(input + ": ").doesNotContain("\n");
          assertNothingLeft(out);
        }
      }
    }
    return failed;
  }

  @Test
  void arrowJsFileAndStreamConvertExactly() throws IOException {
    for (String name : new String[] {"rows.arrow", "rows.arrows"}) {
      Path in = dir.resolve(name);
      try (InputStream r = getClass().getResourceAsStream("/arrow-js/" + name)) {
        Files.copy(r, in);
      }
      Path out = dir.resolve("js-" + name);
      assertThat(convert(in, out).rows()).as(name).isEqualTo(1500);
      List<List<Object>> expected = new ArrayList<>();
      for (int i = 0; i < 1500; i++) {
        expected.add(Arrays.asList((long) i, i % 7 == 0 ? null : "n" + i, (long) (i % 3), i / 2.0));
      }
      assertThat(read(out)).as(name).isEqualTo(expected);
    }
  }

  /**
   * Maps, fixed-size lists and float16 from arrow-js: valid batches that Arrow Java's own validator
   * rejects (it checks a map as a list, has no float16 and asks fixed-size lists for offsets), so
   * that they failed as "damaged".
   */
  @Test
  void arrowJsMapsFixedSizeListsAndFloat16ConvertExactly() throws IOException {
    for (String name : new String[] {"types.arrow", "types.arrows"}) {
      Path in = dir.resolve(name);
      try (InputStream r = getClass().getResourceAsStream("/arrow-js/" + name)) {
        Files.copy(r, in);
      }
      Path out = dir.resolve("js-" + name);
      assertThat(convert(in, out).rows()).as(name).isEqualTo(40);
      Map<String, List<Object>> cols = H5adRows.dataset(out, allocator);
      for (int i = 0; i < 40; i++) {
        Object m = null;
        if (i % 4 != 0) {
          Map<String, Object> k = new LinkedHashMap<>();
          k.put("key", "k" + i % 3);
          k.put("value", (long) i);
          Map<String, Object> z = new LinkedHashMap<>();
          z.put("key", "z");
          z.put("value", null);
          m = List.of(k, z);
        }
        assertThat(cols.get("m").get(i)).as(name + " m " + i).isEqualTo(m);
        assertThat(cols.get("v").get(i))
            .as(name + " v " + i)
            .isEqualTo(List.of((float) i, -(float) i));
        assertThat(cols.get("h").get(i))
            .as(name + " h " + i)
            .isEqualTo(i % 5 == 0 ? null : half(i / 4f));
      }
    }
  }

  /** A float16's little-endian bytes in hex, as ArrowValues shows them (normal values only). */
  private static String half(float x) {
    int f = Float.floatToIntBits(x);
    int bits =
        ((f >>> 16) & 0x8000) | ((((f >>> 23) & 0xff) - 127 + 15) << 10) | ((f >>> 13) & 0x3ff);
    return String.format("%02x%02x", bits & 0xff, bits >>> 8);
  }

  @Test
  void arrowJsFileCutAfterItsLastBatchFails() throws IOException {
    byte[] bytes;
    try (InputStream r = getClass().getResourceAsStream("/arrow-js/rows.arrow")) {
      bytes = r.readAllBytes();
    }
    long[] last = batchSpans(bytes, true).get(2);
    assertThat(fails(Arrays.copyOf(bytes, (int) last[2]), "js-cut.arrow"))
        .contains("incomplete Arrow IPC file: it ends at offset " + last[2]);
  }
}

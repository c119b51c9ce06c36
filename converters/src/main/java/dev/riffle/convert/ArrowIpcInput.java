package dev.riffle.convert;

import dev.riffle.convert.ArrowIpcReaders.FooterReader;
import dev.riffle.convert.ArrowIpcReaders.Problem;
import dev.riffle.convert.ArrowIpcReaders.StreamMessages;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.Channels;
import java.nio.channels.SeekableByteChannel;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.arrow.flatbuf.Footer;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.SeekableReadChannel;
import org.apache.arrow.vector.ipc.message.ArrowBlock;
import org.apache.arrow.vector.ipc.message.ArrowFooter;

/**
 * An Arrow IPC input opened so that nothing in it is lost or misread without an error.
 *
 * <ul>
 *   <li>A file ({@code ARROW1} at its start) is read through its footer, as Arrow's file reader
 *       does: the footer and the closing magic must be there, so a file cut anywhere (even exactly
 *       at a record batch boundary, where a sequential reader sees a complete stream) is refused,
 *       and files whose writers do not repeat the schema message after the magic (arrow-js) read.
 *       Every block the footer lists must lie between the magic and the footer.
 *   <li>A stream must end with its end-of-stream marker; the spec allows a writer to just close the
 *       stream instead, but every Arrow writer writes the marker, and without it a stream cut at a
 *       batch boundary converts part of the rows and reports success. A message's metadata length
 *       is checked against the bytes left before it is read (Arrow would allocate it).
 *   <li>Every batch's field nodes and fixed-size buffers are checked against its length before
 *       Arrow loads it ({@link ArrowIpcShape}), and every batch and dictionary is validated in full
 *       (offsets, lengths, buffer sizes) before it is written. Buffers come from an allocator
 *       bounded by a multiple of the input's length, so a damaged length fails cleanly instead of
 *       exhausting memory.
 * </ul>
 *
 * Every failure is an {@link InputException} naming the input, with the record batch and the offset
 * where they are known. Arrow IPC has no checksums: damage that leaves the structure valid (a
 * flipped byte inside a value) cannot be seen here.
 */
final class ArrowIpcInput implements AutoCloseable {
  private static final byte[] MAGIC = {'A', 'R', 'R', 'O', 'W', '1'};

  /** The file format's magic, padded to 8 bytes: where its first message starts. */
  private static final int HEAD_BYTES = 8;

  /** The footer's length (int32) and the closing magic. */
  private static final int TAIL_BYTES = 4 + MAGIC.length;

  /** Slack over four times the input's length for the reader's buffers (see {@link #open}). */
  private static final long ALLOCATION_SLACK = 64L << 20;

  private final String name;
  private final BufferAllocator allocator;
  private final ArrowReader reader;
  private final List<ArrowBlock> blocks;
  private final StreamMessages messages;
  private VectorSchemaRoot root;
  private int batches;
  private long rows;
  private boolean failed;

  private ArrowIpcInput(
      String name,
      BufferAllocator allocator,
      ArrowReader reader,
      List<ArrowBlock> blocks,
      StreamMessages messages) {
    this.name = name;
    this.allocator = allocator;
    this.reader = reader;
    this.blocks = blocks;
    this.messages = messages;
  }

  /**
   * Opens an input and, for a file, checks its footer.
   *
   * @throws InputException naming the input, if it is too short or its footer is missing or damaged
   */
  static ArrowIpcInput open(SourceFile input) throws IOException {
    // Whatever a batch holds was read from the input, and a batch and the next one are alive at
    // once, with dictionaries; allocations round up to a power of two: four times the length
    // bounds that, while a damaged body length (gigabytes or exabytes) fails at once. The
    // allocator is the input's own: see close().
    long limit =
        input.length() > (Long.MAX_VALUE - ALLOCATION_SLACK) / 4
            ? Long.MAX_VALUE
            : 4 * input.length() + ALLOCATION_SLACK;
    BufferAllocator allocator = new RootAllocator(limit);
    SeekableByteChannel ch = null;
    try {
      ch = input.openChannel();
      long size = input.length();
      ByteBuffer head = ByteBuffer.allocate(HEAD_BYTES);
      readFully(ch, 0, head);
      if (isFile(head)) {
        ArrowFooter footer;
        try {
          footer = checkFooter(ch, size);
        } catch (Problem p) {
          throw new InputException(input.name(), p.getMessage(), p);
        }
        FooterReader reader;
        try {
          reader = new FooterReader(new SeekableReadChannel(ch), footer, allocator);
        } catch (RuntimeException e) {
          throw new InputException(
              input.name(),
              "damaged Arrow IPC file: cannot use the schema in its footer ("
                  + ParquetBatchReader.oneLine(e)
                  + ")",
              e);
        }
        return new ArrowIpcInput(input.name(), allocator, reader, footer.getRecordBatches(), null);
      }
      ch.position(0);
      StreamMessages messages =
          new StreamMessages(
              new BufferedInputStream(Channels.newInputStream(ch), 1 << 20), size, allocator);
      ArrowStreamReader reader = new ArrowStreamReader(messages, allocator);
      return new ArrowIpcInput(input.name(), allocator, reader, null, messages);
    } catch (IOException | RuntimeException e) {
      if (ch != null) {
        try {
          ch.close();
        } catch (IOException suppressed) {
          e.addSuppressed(suppressed);
        }
      }
      allocator.close();
      throw e;
    }
  }

  private static boolean isFile(ByteBuffer head) {
    if (head.limit() < HEAD_BYTES) {
      return false;
    }
    for (int i = 0; i < MAGIC.length; i++) {
      if (head.get(i) != MAGIC[i]) {
        return false;
      }
    }
    return true;
  }

  /** The file's footer, once it is found and every block it lists lies inside the file. */
  private static ArrowFooter checkFooter(SeekableByteChannel ch, long size) throws IOException {
    if (size < HEAD_BYTES + TAIL_BYTES) {
      throw new Problem(
          "incomplete Arrow IPC file: it ends at offset "
              + size
              + ", before any footer (truncated, or not completely written)");
    }
    ByteBuffer tail = ByteBuffer.allocate(TAIL_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    readFully(ch, size - TAIL_BYTES, tail);
    for (int i = 0; i < MAGIC.length; i++) {
      if (tail.get(4 + i) != MAGIC[i]) {
        throw new Problem(
            "incomplete Arrow IPC file: it ends at offset "
                + size
                + " without its footer and closing ARROW1 magic (truncated, or not completely"
                + " written)");
      }
    }
    int footerLength = tail.getInt(0);
    long footerOffset = size - TAIL_BYTES - footerLength;
    if (footerLength <= 0 || footerOffset < HEAD_BYTES) {
      throw new Problem(
          "damaged Arrow IPC file: the footer length "
              + footerLength
              + " at offset "
              + (size - TAIL_BYTES)
              + " does not fit a file of "
              + size
              + " bytes");
    }
    ByteBuffer bytes = ByteBuffer.allocate(footerLength);
    readFully(ch, footerOffset, bytes);
    ArrowFooter footer;
    try {
      footer = new ArrowFooter(Footer.getRootAsFooter(bytes));
    } catch (RuntimeException e) {
      throw new Problem(
          "damaged Arrow IPC file: cannot read the footer at offset "
              + footerOffset
              + " ("
              + ParquetBatchReader.oneLine(e)
              + ")");
    }
    checkBlocks(footer.getDictionaries(), "dictionary batch", footerOffset);
    checkBlocks(footer.getRecordBatches(), "record batch", footerOffset);
    checkCoverage(ch, footer, footerOffset);
    return footer;
  }

  /**
   * Checks that the footer's blocks, after the schema message and before the end-of-stream marker,
   * cover the data between the magic and the footer one after another, as every writer writes them:
   * a footer that lost a block to damage would otherwise drop its rows without a word.
   */
  private static void checkCoverage(SeekableByteChannel ch, ArrowFooter footer, long footerOffset)
      throws IOException {
    List<ArrowBlock> blocks = new ArrayList<>(footer.getDictionaries());
    blocks.addAll(footer.getRecordBatches());
    blocks.sort(Comparator.comparingLong(ArrowBlock::getOffset));
    long at = HEAD_BYTES;
    if (blocks.isEmpty() || blocks.get(0).getOffset() != at) {
      // The schema message, which some writers (arrow-js) leave out of a file.
      ByteBuffer prefix = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
      readFully(ch, at, prefix);
      boolean continuation = prefix.getInt(0) == -1;
      long length = (continuation ? 8L : 4L) + prefix.getInt(continuation ? 4 : 0);
      if (length > 4 && length <= footerOffset - at) {
        at += length;
      }
    }
    for (ArrowBlock b : blocks) {
      if (b.getOffset() != at) {
        throw new Problem(
            "damaged Arrow IPC file: its footer "
                + (b.getOffset() > at
                    ? "accounts for nothing between offsets " + at + " and " + b.getOffset()
                    : "lists overlapping messages at offset " + b.getOffset())
                + " (a damaged footer, which may have lost record batches)");
      }
      at = b.getOffset() + b.getMetadataLength() + b.getBodyLength();
    }
    long marker = footerOffset - at;
    if (marker != 0 && marker != 4 && marker != 8) {
      throw new Problem(
          "damaged Arrow IPC file: its footer accounts for nothing between offsets "
              + at
              + " and "
              + footerOffset
              + " (a damaged footer, which may have lost record batches)");
    }
  }

  private static void checkBlocks(List<ArrowBlock> blocks, String what, long footerOffset)
      throws Problem {
    for (int i = 0; i < blocks.size(); i++) {
      ArrowBlock b = blocks.get(i);
      boolean inside =
          b.getOffset() >= HEAD_BYTES
              && b.getMetadataLength() > 0
              && b.getBodyLength() >= 0
              && b.getOffset() < footerOffset
              && b.getMetadataLength() <= footerOffset - b.getOffset()
              && b.getBodyLength() <= footerOffset - b.getOffset() - b.getMetadataLength();
      if (!inside) {
        throw new Problem(
            "damaged Arrow IPC file: its footer places "
                + what
                + " "
                + (i + 1)
                + " of "
                + blocks.size()
                + " at offset "
                + b.getOffset()
                + " with "
                + b.getMetadataLength()
                + " bytes of metadata and "
                + b.getBodyLength()
                + " of body, outside the data between offsets "
                + HEAD_BYTES
                + " and "
                + footerOffset);
      }
    }
  }

  private static void readFully(SeekableByteChannel ch, long offset, ByteBuffer into)
      throws IOException {
    ch.position(offset);
    while (into.hasRemaining()) {
      if (ch.read(into) < 0) {
        break;
      }
    }
    into.flip();
  }

  /**
   * The batch that {@link #next()} loads into; reading it reads the schema (and, for a file, the
   * dictionaries).
   *
   * @throws InputException naming the input, if that fails
   */
  VectorSchemaRoot root() throws InputException {
    if (root == null) {
      try {
        root = reader.getVectorSchemaRoot();
      } catch (IOException | RuntimeException e) {
        String problem;
        if (messages != null) {
          problem = "not an Arrow IPC file or stream (" + ParquetBatchReader.oneLine(e) + ")";
        } else if (e instanceof Problem) {
          problem = e.getMessage();
        } else {
          problem =
              "damaged Arrow IPC file: cannot read its schema or dictionaries ("
                  + ParquetBatchReader.oneLine(e)
                  + ")";
        }
        failed = true;
        throw new InputException(name, problem, e);
      }
    }
    return root;
  }

  /** The dictionaries of dictionary-encoded fields, as the writer looks them up. */
  ArrowReader dictionaries() {
    return reader;
  }

  /**
   * Loads and validates the next record batch into {@link #root()}.
   *
   * @return false at the end, which for a stream is its end-of-stream marker
   * @throws InputException naming the input, the batch and the offset, if the batch cannot be read
   *     or fails validation, or the stream ends without its marker
   */
  boolean next() throws InputException {
    root();
    long at = messages == null && batches < blocks.size() ? blocks.get(batches).getOffset() : -1;
    boolean more;
    try {
      more = reader.loadNextBatch();
    } catch (Problem p) {
      failed = true;
      throw new InputException(name, p.getMessage() + afterRows(), p);
    } catch (IOException | RuntimeException e) {
      failed = true;
      throw new InputException(name, cannotRead(at, e) + afterRows(), e);
    }
    if (!more) {
      return false;
    }
    if (messages != null) {
      at = messages.batchOffset;
    }
    try {
      ArrowValidation.validateFull(root);
      for (Dictionary d : reader.getDictionaryVectors().values()) {
        ArrowValidation.validateFull(d.getVector());
      }
    } catch (IOException | RuntimeException e) {
      failed = true;
      throw new InputException(
          name,
          "damaged Arrow IPC "
              + (messages == null ? "file" : "stream")
              + ": record batch "
              + (batches + 1)
              + " at offset "
              + at
              + " is not valid ("
              + ParquetBatchReader.oneLine(e)
              + ")"
              + afterRows(),
          e);
    }
    batches++;
    rows += root.getRowCount();
    return true;
  }

  /** What a failed load says, when the reader itself failed. */
  private String cannotRead(long at, Exception e) {
    String cause = " (" + ParquetBatchReader.oneLine(e) + ")";
    if (messages == null) {
      return "damaged Arrow IPC file: cannot read record batch "
          + (batches + 1)
          + " of "
          + blocks.size()
          + " at offset "
          + at
          + cause;
    }
    if (messages.exhausted()) {
      return "incomplete Arrow IPC stream: it ends at offset "
          + messages.length
          + " inside the message that starts at offset "
          + messages.messageOffset
          + " (truncated, or not completely written)";
    }
    return "damaged Arrow IPC stream: cannot read the message at offset "
        + messages.messageOffset
        + cause;
  }

  /** Says how much was read before a failure, so that a partial input is recognized as one. */
  private String afterRows() {
    return batches == 0
        ? ""
        : "; "
            + batches
            + (batches == 1 ? " record batch (" : " record batches (")
            + rows
            + " rows) came before it";
  }

  /** Bytes read so far, for progress. */
  long bytesRead() {
    return reader.bytesRead();
  }

  @Override
  public void close() throws IOException {
    try {
      reader.close();
    } finally {
      try {
        allocator.close();
      } catch (IllegalStateException leaked) {
        // Arrow's readers and vectors can lose a buffer on a damaged batch that got past the
        // checks here (a vector that reallocates while it loads, and fails part way): the memory
        // is lost to this process, and the failure that was reported says why. Hence an
        // allocator of the input's own, so that the caller's still closes cleanly. Without a
        // failure a leak is a bug, and is thrown.
        if (!failed) {
          throw leaked;
        }
      }
    }
  }
}

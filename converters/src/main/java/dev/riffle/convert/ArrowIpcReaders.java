package dev.riffle.convert;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.Channels;
import java.util.List;
import org.apache.arrow.flatbuf.DictionaryBatch;
import org.apache.arrow.flatbuf.Message;
import org.apache.arrow.flatbuf.MessageHeader;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.apache.arrow.vector.ipc.ReadChannel;
import org.apache.arrow.vector.ipc.SeekableReadChannel;
import org.apache.arrow.vector.ipc.message.ArrowBlock;
import org.apache.arrow.vector.ipc.message.ArrowDictionaryBatch;
import org.apache.arrow.vector.ipc.message.ArrowFooter;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.ipc.message.MessageChannelReader;
import org.apache.arrow.vector.ipc.message.MessageResult;
import org.apache.arrow.vector.ipc.message.MessageSerializer;

/**
 * Arrow's IPC readers, made safe for damaged input. On a damaged message Arrow's own readers throw
 * while still holding the buffer they read it into, and never free it (nor, in a file, the
 * dictionaries loaded before the damaged one): memory lost for the rest of the process. Here every
 * message is parsed into batches, and checked against the schema ({@link ArrowIpcShape}), by code
 * that frees its buffer when that fails, before Arrow's readers touch it; damage is reported as a
 * {@link Problem} saying where.
 */
final class ArrowIpcReaders {
  private ArrowIpcReaders() {}

  /** What is wrong with the input, without its name (which {@link InputException} adds). */
  static final class Problem extends IOException {
    private static final long serialVersionUID = 1L;

    Problem(String message) {
      super(message);
    }
  }

  /**
   * Parses a record or dictionary batch message over its body, and checks its field nodes. On
   * success the batch holds the body and the caller's reference to it is consumed, as Arrow's
   * deserializers do; on failure nothing is consumed and nothing is held.
   *
   * @param where the message, for messages: "the message at offset N"
   */
  private static AutoCloseable parse(Message m, ArrowBuf body, ArrowIpcShape shape, String where)
      throws IOException {
    if (m.headerType() == MessageHeader.RecordBatch) {
      ArrowRecordBatch batch = MessageSerializer.deserializeRecordBatch(m, body);
      checked(batch, () -> shape.checkRecordBatch(batch, where), body);
      return batch;
    }
    if (m.headerType() == MessageHeader.DictionaryBatch) {
      DictionaryBatch d = (DictionaryBatch) m.header(new DictionaryBatch());
      if (d == null || d.data() == null) {
        throw new Problem(where + " is a dictionary batch without data");
      }
      if (!shape.hasDictionary(d.id())) {
        // Arrow's reader would throw after taking the batch, and never free it.
        throw new Problem(
            where
                + " is a dictionary batch for dictionary "
                + d.id()
                + ", which no field of the schema uses");
      }
      ArrowDictionaryBatch batch = MessageSerializer.deserializeDictionaryBatch(m, body);
      checked(batch, () -> shape.checkDictionaryBatch(d.id(), batch.getDictionary(), where), body);
      return batch;
    }
    throw new Problem(
        where + " is a message of type " + m.headerType() + ", not a record or dictionary batch");
  }

  /** A check that a parsed batch may fail. */
  private interface Check {
    void run() throws Problem;
  }

  /** Runs a check of a parsed batch; if it fails, frees the batch and gives back the body. */
  private static void checked(AutoCloseable parsed, Check check, ArrowBuf body) throws IOException {
    try {
      check.run();
    } catch (Problem e) {
      // Parsing consumed the caller's reference to the body: take it again, as on failure.
      body.getReferenceManager().retain();
      try {
        parsed.close();
      } catch (Exception suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
  }

  /**
   * Reads an IPC file through the blocks of its footer, which {@link ArrowIpcInput} has checked to
   * lie inside the file.
   */
  static final class FooterReader extends ArrowFileReader {
    private final SeekableReadChannel in;
    private final List<ArrowBlock> dictionaryBlocks;
    private final List<ArrowBlock> recordBlocks;
    private final ArrowIpcShape shape;
    private int nextDictionary;
    private int nextBatch;

    FooterReader(SeekableReadChannel in, ArrowFooter footer, BufferAllocator allocator) {
      super(in, allocator);
      this.in = in;
      this.dictionaryBlocks = footer.getDictionaries();
      this.recordBlocks = footer.getRecordBatches();
      this.shape = new ArrowIpcShape(footer.getSchema());
    }

    @Override
    public void initialize() throws IOException {
      try {
        super.initialize();
      } catch (IOException | RuntimeException e) {
        // Arrow's close() frees the dictionaries only of a reader whose initialization finished.
        if (dictionaries != null) {
          for (Dictionary d : dictionaries.values()) {
            d.getVector().close();
          }
        }
        throw e;
      }
    }

    @Override
    public ArrowDictionaryBatch readDictionary() throws IOException {
      if (nextDictionary >= dictionaryBlocks.size()) {
        throw new Problem(
            "damaged Arrow IPC file: its schema has more dictionary-encoded fields than its footer"
                + " has dictionary batches ("
                + dictionaryBlocks.size()
                + ")");
      }
      int i = nextDictionary++;
      String where = (i + 1) + " of " + dictionaryBlocks.size();
      Object batch = read(dictionaryBlocks.get(i), "dictionary batch " + where);
      if (!(batch instanceof ArrowDictionaryBatch)) {
        ((ArrowRecordBatch) batch).close();
        throw new Problem(
            "damaged Arrow IPC file: dictionary batch " + where + " is a record batch");
      }
      return (ArrowDictionaryBatch) batch;
    }

    @Override
    public boolean loadNextBatch() throws IOException {
      prepareLoadNextBatch();
      if (nextBatch >= recordBlocks.size()) {
        return false;
      }
      int i = nextBatch++;
      String where = (i + 1) + " of " + recordBlocks.size();
      Object batch = read(recordBlocks.get(i), "record batch " + where);
      if (!(batch instanceof ArrowRecordBatch)) {
        ((ArrowDictionaryBatch) batch).close();
        throw new Problem(
            "damaged Arrow IPC file: record batch " + where + " is a dictionary batch");
      }
      loadRecordBatch((ArrowRecordBatch) batch);
      return true;
    }

    /** One block's message, parsed; its buffer is freed if that fails. */
    private Object read(ArrowBlock block, String what) throws IOException {
      String where = "at offset " + block.getOffset();
      long length = block.getMetadataLength() + block.getBodyLength();
      ArrowBuf buffer = allocator.buffer(length);
      boolean handedOver = false;
      try {
        in.setPosition(block.getOffset());
        if (in.readFully(buffer, length) != length) {
          throw new Problem("the file ends inside " + what + " " + where);
        }
        int prefix =
            block.getMetadataLength() >= 8
                    && buffer.getInt(0) == MessageSerializer.IPC_CONTINUATION_TOKEN
                ? 8
                : 4;
        if (block.getMetadataLength() <= prefix) {
          throw new Problem(what + " " + where + " has no metadata");
        }
        ByteBuffer metadata =
            buffer
                .slice(prefix, block.getMetadataLength() - prefix)
                .nioBuffer()
                .asReadOnlyBuffer()
                .order(ByteOrder.LITTLE_ENDIAN);
        Message m = Message.getRootAsMessage(metadata);
        ArrowBuf body = buffer.slice(block.getMetadataLength(), block.getBodyLength());
        Object batch = parse(m, body, shape, what + " " + where);
        handedOver = true;
        return batch;
      } catch (Problem e) {
        throw new Problem("damaged Arrow IPC file: " + e.getMessage());
      } catch (IOException | RuntimeException e) {
        throw new Problem(
            "damaged Arrow IPC file: cannot read "
                + what
                + " "
                + where
                + " ("
                + ParquetBatchReader.oneLine(e)
                + ")");
      } finally {
        if (!handedOver) {
          buffer.close();
        }
      }
    }
  }

  /**
   * Reads a stream's messages for Arrow's stream reader: notes where each starts, requires the
   * end-of-stream marker (Arrow's reader takes the end of the input for the end of the stream),
   * checks a message's metadata length against the bytes left before Arrow allocates it, and parses
   * each batch once before Arrow does, so that a damaged one is freed and reported here.
   */
  static final class StreamMessages extends MessageChannelReader {
    private final BufferedInputStream peek;
    final long length;
    private ArrowIpcShape shape;
    long messageOffset;
    long batchOffset = -1;

    StreamMessages(BufferedInputStream in, long length, BufferAllocator allocator) {
      super(new ReadChannel(Channels.newChannel(in)), allocator);
      this.peek = in;
      this.length = length;
    }

    /** Whether the whole input has been read. */
    boolean exhausted() {
      return bytesRead() >= length;
    }

    @Override
    public MessageResult readNext() throws IOException {
      long at = bytesRead();
      messageOffset = at;
      // The reader has consumed exactly the messages before this one, so the stream is at its
      // start: look at the length prefix (after the continuation token, if any) without taking it.
      peek.mark(8);
      byte[] head = peek.readNBytes(8);
      peek.reset();
      ByteBuffer b = ByteBuffer.wrap(head).order(ByteOrder.LITTLE_ENDIAN);
      int prefix =
          head.length >= 4 && b.getInt(0) == MessageSerializer.IPC_CONTINUATION_TOKEN ? 8 : 4;
      if (head.length < prefix) {
        throw new Problem(
            "incomplete Arrow IPC stream: it ends at offset "
                + (at + head.length)
                + " without its end-of-stream marker (truncated, or its writer was not closed)");
      }
      int metadataLength = b.getInt(prefix - 4);
      if (metadataLength == 0 && at + prefix != length) {
        // A damaged length of 0 reads as the end of the stream: the rest would be dropped.
        throw new Problem(
            "damaged Arrow IPC stream: it has an end-of-stream marker at offset "
                + at
                + ", but goes on to offset "
                + length
                + " (a damaged message, or streams written one after another)");
      }
      if (metadataLength < 0) {
        throw new Problem(
            "damaged Arrow IPC stream: the message at offset "
                + at
                + " has a negative metadata length ("
                + metadataLength
                + ")");
      }
      if (metadataLength > length - at - prefix) {
        // Arrow would allocate the claimed length before finding that the input is shorter.
        throw new Problem(
            "incomplete Arrow IPC stream: it ends at offset "
                + length
                + " inside the message at offset "
                + at
                + ", whose metadata claims "
                + metadataLength
                + " bytes (truncated or damaged)");
      }
      MessageResult r = super.readNext();
      if (r == null) {
        return null;
      }
      Message m = r.getMessage();
      ArrowBuf body = r.getBodyBuffer();
      String where = "the message at offset " + at;
      try {
        if (shape == null) {
          if (m.headerType() != MessageHeader.Schema) {
            throw new Problem(
                "the stream starts with a message of type "
                    + m.headerType()
                    + " where its schema belongs");
          }
          shape = new ArrowIpcShape(MessageSerializer.deserializeSchema(m));
        } else {
          ArrowBuf probe = body == null ? allocator.getEmpty() : body;
          probe.getReferenceManager().retain();
          AutoCloseable batch;
          try {
            batch = parse(m, probe, shape, where);
          } catch (IOException | RuntimeException e) {
            probe.getReferenceManager().release();
            throw e;
          }
          // Parsed once here, to be parsed again, identically, by Arrow.
          batch.close();
        }
      } catch (Problem e) {
        release(body);
        throw new Problem("damaged Arrow IPC stream: " + e.getMessage());
      } catch (Exception e) {
        release(body);
        throw new Problem(
            "damaged Arrow IPC stream: cannot read "
                + where
                + " ("
                + ParquetBatchReader.oneLine(e)
                + ")");
      }
      if (m.headerType() == MessageHeader.RecordBatch) {
        batchOffset = at;
      }
      return r;
    }

    private static void release(ArrowBuf body) {
      if (body != null) {
        body.close();
      }
    }
  }
}

package dev.riffle.format.encoding;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;
import dev.riffle.format.ByteSink;
import dev.riffle.format.ZipLayout;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import java.util.zip.CRC32C;

/** Writes ZIP_FIXED and ZIP_VAR pages ({@link ZipLayout}). */
public final class ZipEncoder {
  private ZipEncoder() {}

  /**
   * Records at least this large are offered to zstd; smaller ones rarely shrink enough to pay for a
   * decompression on every random read.
   */
  public static final int ZSTD_MIN_BYTES = 2048;

  /**
   * A compressed record is kept only if it is at most 3/4 of the original. Every random read of a
   * compressed record pays a zstd inflate; measured on single-cell rows (sorted gene ids + random
   * floats, which shrink to ~0.8), raw records loaded 2.7× faster for 25% more bytes, so zstd is
   * kept for what really compresses (text, repetitive payloads).
   */
  static boolean worthIt(long compressed, int raw) {
    return compressed * 4 <= (long) raw * 3;
  }

  /**
   * Writes equal-sized records as slots of {@code recordBytes} (+1 control byte if the page has
   * nulls), each followed by its CRC32C.
   *
   * @return the slot width
   */
  public static int encodeFixed(PageRows rows, int recordBytes, ByteSink out) {
    boolean control = rows.validCount() < rows.rowCount();
    byte[] data = rows.array();
    int valid = 0;
    for (int r = 0; r < rows.rowCount(); r++) {
      int start = out.length();
      if (rows.isValid(r)) {
        if (control) {
          out.put((byte) ZipLayout.CONTROL_VALID);
        }
        out.put(data, rows.recordStart(valid), recordBytes);
        valid++;
      } else {
        out.put((byte) 0);
        out.putZeros(recordBytes);
      }
      putRecordCrc(out, start);
    }
    return recordBytes + (control ? 1 : 0) + ZipLayout.RECORD_CRC_BYTES;
  }

  /** Appends the CRC32C of the bytes written since {@code start} (FORMAT.md §5.2, §5.3). */
  private static void putRecordCrc(ByteSink out, int start) {
    CRC32C crc = new CRC32C();
    crc.update(out.array(), start, out.length() - start);
    out.putInt((int) crc.getValue());
  }

  /**
   * Writes a control byte, the payload and a CRC32C of each valid row, never splitting or packing
   * records.
   *
   * @param zstdLevel compression level, or 0 to never compress
   * @return rowCount + 1 record offsets relative to the start of the page
   */
  public static LongList encodeVar(PageRows rows, int zstdLevel, ByteSink out) {
    return encodeVar(rows, zstdLevel, 0, null, new ZstdTrials(), out);
  }

  /**
   * A packed record is kept only if it is at most 19/20 of the plain one: below that gain, a record
   * of a fixed size (ZIP_FIXED) or the plain bytes are worth more than the unpacking.
   */
  static boolean packWorthIt(long packed, int raw) {
    return packed < raw && packed * 20 <= (long) raw * 19;
  }

  /**
   * Writes a control byte and the payload of each row. Each record has up to three candidates: a
   * zstd frame if that is at most 3/4 of it ({@link #worthIt}); with {@code splitStride > 0}, a
   * split record ({@link ByteSplit}) if that is at most 19/20 of it; with a {@code packer}, a
   * packed record if that is at most 19/20 of it ({@link #packWorthIt}). The smallest candidate
   * wins, ties going to packed, then zstd, then split, except that zstd beats a packed candidate
   * only if it is at most 3/4 of it; with none the record is plain. Once packing has beaten zstd
   * {@link #PACKED_STREAK} times in a row, zstd is only sampled ({@link ZstdTrials}). Records of a
   * large page are encoded by several threads, each a contiguous part; the bytes are the same
   * whatever the number of threads. Every valid record ends with the CRC32C of its control byte and
   * payload; a null row is the byte 0.
   *
   * @param zstdLevel compression level, or 0 to never compress
   * @param splitStride plane stride for split records (2, 4 or 8), or 0 for none
   * @param packer the column's record packer, or null for no packed records
   * @param trials the column's zstd trial state, carried from page to page
   * @return rowCount + 1 record offsets relative to the start of the page
   */
  public static LongList encodeVar(
      PageRows rows,
      int zstdLevel,
      int splitStride,
      RecordPacker packer,
      ZstdTrials trials,
      ByteSink out) {
    return encodeVar(
        rows, zstdLevel, splitStride, packer, trials, out, parts(rows, zstdLevel, packer));
  }

  /** {@link #encodeVar} with the page's rows shared among {@code parts} threads. */
  static LongList encodeVar(
      PageRows rows,
      int zstdLevel,
      int splitStride,
      RecordPacker packer,
      ZstdTrials trials,
      ByteSink out,
      int parts) {
    int n = rows.rowCount();
    // Which records are offered to zstd is fixed for the whole page before any is encoded, so
    // that the page's bytes do not depend on how its records are shared among threads.
    boolean sampling = trials.sampling();
    long firstRecord = trials.records();
    byte[] won = new byte[n];
    LongList offsets = new LongList();
    int pageStart = out.length();
    if (parts == 1) {
      long[] at = new long[n];
      encodeRows(
          rows, 0, n, 0, firstRecord, sampling, zstdLevel, splitStride, packer, out, at, won);
      for (int r = 0; r < n; r++) {
        offsets.add(at[r] - pageStart);
      }
    } else {
      Part[] work = new Part[parts];
      int valid = 0;
      int row = 0;
      for (int p = 0; p < parts; p++) {
        int end = (int) ((long) n * (p + 1) / parts);
        int firstValid = valid;
        for (int r = row; r < end; r++) {
          valid += rows.isValid(r) ? 1 : 0;
        }
        int from = row;
        work[p] =
            new Part(
                () -> {
                  ByteSink sink = new ByteSink(64 * 1024);
                  long[] at = new long[end - from];
                  encodeRows(
                      rows,
                      from,
                      end,
                      firstValid,
                      firstRecord,
                      sampling,
                      zstdLevel,
                      splitStride,
                      packer,
                      sink,
                      at,
                      won);
                  return new Encoded(sink, at);
                });
        row = end;
      }
      for (int p = 1; p < parts && EncodePool.INSTANCE != null; p++) {
        EncodePool.INSTANCE.execute(work[p]);
      }
      for (Part part : work) {
        Encoded e = part.result();
        long base = out.length() - pageStart;
        for (long a : e.at) {
          offsets.add(base + a);
        }
        out.put(e.sink.array(), 0, e.sink.length());
      }
    }
    offsets.add(out.length() - pageStart);
    for (int r = 0; r < n; r++) {
      if (rows.isValid(r)) {
        trials.record((won[r] & 3) == WON_PACKED, (won[r] & TRIED) != 0);
      }
    }
    return offsets;
  }

  /**
   * Records of a page are shared among threads only when packing or zstd gives each enough work to
   * pay for the hand-over: at least this many records per thread.
   */
  private static final int MIN_PART_RECORDS = 16;

  /** Pages whose records are fewer bytes than this are encoded by the calling thread alone. */
  private static final int MIN_PARALLEL_BYTES = 64 * 1024;

  private static int parts(PageRows rows, int zstdLevel, RecordPacker packer) {
    if ((packer == null && zstdLevel <= 0) || rows.bytes() < MIN_PARALLEL_BYTES) {
      return 1;
    }
    // Twice as many parts as threads: the writer's thread, which has the rest of the file's work
    // besides, takes back the parts no pool thread has started when it is done with its own.
    int parts = 2 * (EncodePool.THREADS + 1);
    return EncodePool.THREADS == 0
        ? 1
        : Math.max(1, Math.min(parts, rows.validCount() / MIN_PART_RECORDS));
  }

  /** One part's bytes and its rows' offsets within them. */
  private record Encoded(ByteSink sink, long[] at) {}

  /**
   * A part of a page, run by whichever thread claims it first: a pool thread, or the writer's own
   * thread when it comes to collect a part no pool thread has started (so a busy pool never makes a
   * writer wait for work it could do itself).
   */
  private static final class Part implements Runnable {
    private final Supplier<Encoded> work;
    private final AtomicBoolean claimed = new AtomicBoolean();
    private final CountDownLatch done = new CountDownLatch(1);
    private Encoded result;
    private Throwable error;

    Part(Supplier<Encoded> work) {
      this.work = work;
    }

    @Override
    public void run() {
      if (!claimed.compareAndSet(false, true)) {
        return;
      }
      try {
        result = work.get();
      } catch (Throwable t) {
        error = t;
      } finally {
        done.countDown();
      }
    }

    Encoded result() {
      run();
      boolean interrupted = false;
      while (true) {
        try {
          done.await();
          break;
        } catch (InterruptedException e) {
          // The part is already running on a pool thread and finishes on its own; wait for it.
          interrupted = true;
        }
      }
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
      if (error instanceof RuntimeException e) {
        throw e;
      }
      if (error instanceof Error e) {
        throw e;
      }
      return result;
    }
  }

  /** The encoding threads every writer of the process shares: one fewer than the cores. */
  private static final class EncodePool {
    static final int THREADS = Math.max(0, Runtime.getRuntime().availableProcessors() - 1);
    static final ExecutorService INSTANCE =
        THREADS == 0
            ? null
            : Executors.newFixedThreadPool(
                THREADS,
                r -> {
                  Thread t = new Thread(r, "riffle-encode");
                  t.setDaemon(true);
                  return t;
                });
  }

  /** A context whose frames equal those of {@code Zstd.compressByteArray(…, level)}. */
  private static ZstdCompressCtx recordContext(int zstdLevel) {
    ZstdCompressCtx ctx = new ZstdCompressCtx();
    ctx.setLevel(zstdLevel);
    ctx.setChecksum(false);
    return ctx;
  }

  /** Marks, in a row's outcome, that its record was offered to zstd. */
  private static final int TRIED = 4;

  /**
   * Encodes rows {@code [from, to)} (the first of them preceded by {@code firstValid} valid rows)
   * into {@code out}: {@code at[r - from]} gets where row r starts in {@code out}, {@code won[r]}
   * its outcome.
   */
  private static void encodeRows(
      PageRows rows,
      int from,
      int to,
      int firstValid,
      long firstRecord,
      boolean sampling,
      int zstdLevel,
      int splitStride,
      RecordPacker packer,
      ByteSink out,
      long[] at,
      byte[] won) {
    byte[] data = rows.array();
    // One zstd context per part: creating one per record (what the static Zstd calls do) cost the
    // writer more than compressing the record.
    try (ByteSplit.Encoder splitter =
            splitStride > 0 && zstdLevel > 0 ? new ByteSplit.Encoder(zstdLevel) : null;
        ZstdCompressCtx zstd = zstdLevel > 0 ? recordContext(zstdLevel) : null) {
      ByteSink packed = packer != null ? new ByteSink(4096) : null;
      int valid = firstValid;
      for (int r = from; r < to; r++) {
        at[r - from] = out.length();
        if (!rows.isValid(r)) {
          out.put((byte) 0);
          continue;
        }
        int start = rows.recordStart(valid);
        int len = rows.recordEnd(valid) - start;
        boolean tryZstd = zstd != null && ZstdTrials.offer(sampling, firstRecord + valid);
        valid++;
        int recordStart = out.length();
        int w =
            writeRecord(
                data,
                start,
                len,
                tryZstd ? zstd : null,
                splitStride,
                splitter,
                packer,
                packed,
                out);
        won[r] = (byte) (w | (tryZstd ? TRIED : 0));
        putRecordCrc(out, recordStart);
      }
    }
  }

  /** A zstd output buffer per thread, reused across records. */
  private static final ThreadLocal<byte[][]> SCRATCH = ThreadLocal.withInitial(() -> new byte[1][]);

  /**
   * After this many records in a row won by packing against a zstd trial, zstd is tried only on
   * every this-many-th record of the column (until it wins or packing stops qualifying).
   */
  static final int PACKED_STREAK = 16;

  /**
   * Which records of a column are offered to zstd. Trial compression was most of the writer's time
   * on count matrices, where packed records win nearly always; so once packing has won {@link
   * #PACKED_STREAK} zstd trials in a row, the next pages offer only every {@code PACKED_STREAK}-th
   * record, until another candidate wins. The choice depends on the column's records alone, so a
   * file written twice from the same rows is the same file.
   */
  public static final class ZstdTrials {
    private int packedStreak;
    private long records;

    /** Whether the next page only samples zstd. */
    boolean sampling() {
      return packedStreak >= PACKED_STREAK;
    }

    /** Valid records of the column so far. */
    long records() {
      return records;
    }

    /** Whether the column's record number {@code record} is offered to zstd. */
    static boolean offer(boolean sampling, long record) {
      return !sampling || record % PACKED_STREAK == 0;
    }

    /** Notes the outcome of the next record, in column order. */
    void record(boolean packedWon, boolean zstdTried) {
      records++;
      if (!packedWon) {
        packedStreak = 0;
      } else if (zstdTried) {
        packedStreak++;
      }
    }
  }

  private static final int WON_PLAIN = 0;
  private static final int WON_PACKED = 1;
  private static final int WON_ZSTD = 2;
  private static final int WON_SPLIT = 3;

  /**
   * Writes one valid record's control byte and payload: the smallest qualifying candidate.
   *
   * @param zstd the context for a zstd candidate, or null for none
   * @return which candidate was written ({@code WON_*})
   */
  private static int writeRecord(
      byte[] data,
      int from,
      int len,
      ZstdCompressCtx zstd,
      int splitStride,
      ByteSplit.Encoder splitter,
      RecordPacker packer,
      ByteSink packed,
      ByteSink out) {
    long packedBytes = -1;
    if (packer != null) {
      packed.clear();
      packer.pack(data, from, len, packed);
      if (packWorthIt(packed.length(), len)) {
        packedBytes = packed.length();
      }
    }
    long zstdBytes = -1;
    byte[][] scratch = SCRATCH.get();
    if (zstd != null && len >= ZSTD_MIN_BYTES && len <= ZipLayout.MAX_INFLATED_BYTES) {
      int bound = (int) Zstd.compressBound(len);
      if (scratch[0] == null || scratch[0].length < bound) {
        scratch[0] = new byte[bound];
      }
      long n = zstd.compressByteArray(scratch[0], 0, bound, data, from, len);
      // Against a packed candidate, zstd must win by as much as against the plain record: its
      // inflate costs every random read more than unpacking does.
      if (worthIt(n, len) && (packedBytes < 0 || worthIt(n, (int) packedBytes))) {
        zstdBytes = n;
      }
    }
    if (splitter != null
        && len >= ByteSplit.MIN_RECORD_BYTES
        && len <= ZipLayout.MAX_INFLATED_BYTES) {
      int mark = out.length();
      out.put((byte) (ZipLayout.CONTROL_VALID | ZipLayout.CONTROL_SPLIT));
      int n = splitter.encode(data, from, len, splitStride, out);
      if (ByteSplit.worthIt(n, len)
          && (zstdBytes < 0 || n < zstdBytes)
          && (packedBytes < 0 || n < packedBytes)) {
        return WON_SPLIT;
      }
      out.truncate(mark);
    }
    if (packedBytes >= 0 && zstdBytes < 0) {
      out.put((byte) (ZipLayout.CONTROL_VALID | ZipLayout.CONTROL_PACKED));
      out.put(packed.array(), 0, packed.length());
      return WON_PACKED;
    }
    if (zstdBytes >= 0) {
      out.put((byte) (ZipLayout.CONTROL_VALID | ZipLayout.CONTROL_ZSTD));
      out.put(scratch[0], 0, (int) zstdBytes);
      return WON_ZSTD;
    }
    out.put((byte) ZipLayout.CONTROL_VALID);
    out.put(data, from, len);
    return WON_PLAIN;
  }
}

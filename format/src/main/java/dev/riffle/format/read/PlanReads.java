package dev.riffle.format.read;

import dev.riffle.format.CorruptFileException;
import dev.riffle.format.io.IoEngine;
import dev.riffle.format.io.RandomAccessSource;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the byte ranges of a {@link TakePlan} into buffers, one of three ways: one batched call for
 * a remote source (which fetches ranges in parallel itself), side by side on the I/O engine into
 * the caller's area, or one after another. Every read is counted in the reader's {@link ReadStats};
 * a file that ends inside a read is a {@link CorruptFileException}.
 */
final class PlanReads {
  private final RandomAccessSource source;
  private final ReadStats stats;

  PlanReads(RandomAccessSource source, ReadStats stats) {
    this.source = source;
    this.stats = stats;
  }

  /**
   * The plan's reads, in plan order, each as a little-endian buffer of exactly its bytes: into
   * {@code area} when there is one (slices at 4096-aligned positions), else into buffers of their
   * own.
   */
  ByteBuffer[] read(TakePlan plan, ByteBuffer area, IoEngine e, boolean batch, boolean parallel)
      throws IOException {
    int reads = plan.reads();
    ByteBuffer[] buffers = new ByteBuffer[reads];
    if (batch) {
      readBatch(plan, area, buffers);
    } else if (parallel) {
      // The reads run side by side into the caller's area, then the caller decodes as below: a
      // cold take waits for the slowest read instead of the sum of them, and the rows still go
      // straight into vectors sized from the bytes read (no per-thread batches to copy).
      int[] at = new int[reads];
      long pos = 0;
      for (int r = 0; r < reads; r++) {
        at[r] = (int) pos;
        pos += ReadArena.align(plan.readLength[r]);
      }
      ByteBuffer into = area;
      e.run(
          reads,
          (r, w) ->
              buffers[r] = readInto(into, at[r], plan.readOffset[r], (int) plan.readLength[r]));
    } else {
      int pos = 0;
      for (int r = 0; r < reads; r++) {
        long len = plan.readLength[r];
        if (area != null) {
          buffers[r] = readInto(area, pos, plan.readOffset[r], (int) len);
          pos += ReadArena.align(len);
        } else {
          buffers[r] = FileReader.read(source, stats, plan.readOffset[r], len);
        }
      }
    }
    return buffers;
  }

  /**
   * Reads all of a plan's ranges with one {@link RandomAccessSource#readRanges} call: into {@code
   * area} when there is one (as the one-by-one path does), else into a buffer per read.
   */
  private void readBatch(TakePlan plan, ByteBuffer area, ByteBuffer[] buffers) throws IOException {
    int reads = plan.reads();
    List<RandomAccessSource.Range> ranges = new ArrayList<>(reads);
    int pos = 0;
    for (int r = 0; r < reads; r++) {
      long len = plan.readLength[r];
      if (area != null) {
        buffers[r] = area.slice(pos, (int) len);
        pos += ReadArena.align(len);
      } else {
        if (len > Integer.MAX_VALUE - 64) {
          throw new CorruptFileException(
              source.name(), plan.readOffset[r], "read of " + len + " bytes is too large");
        }
        buffers[r] = ByteBuffer.allocate((int) len);
      }
      ranges.add(new RandomAccessSource.Range(plan.readOffset[r], buffers[r]));
    }
    try {
      source.readRanges(ranges);
    } catch (EOFException e) {
      throw new CorruptFileException(
          source.name(),
          plan.readOffset[0],
          "file ends inside one of "
              + reads
              + " reads between offsets "
              + plan.readOffset[0]
              + " and "
              + (plan.readOffset[reads - 1] + plan.readLength[reads - 1]),
          e);
    }
    for (int r = 0; r < reads; r++) {
      stats.read(plan.readOffset[r], plan.readLength[r]);
      buffers[r].flip();
      buffers[r].order(ByteOrder.LITTLE_ENDIAN);
    }
  }

  /** Reads {@code length} bytes at file {@code offset} into {@code area[pos, pos + length)}. */
  ByteBuffer readInto(ByteBuffer area, int pos, long offset, int length) throws IOException {
    ByteBuffer b = area.slice(pos, length).order(ByteOrder.LITTLE_ENDIAN);
    try {
      source.readFully(offset, b);
    } catch (EOFException e) {
      throw new CorruptFileException(
          source.name(), offset, "file ends inside a read of " + length + " bytes", e);
    }
    stats.read(offset, length);
    b.flip();
    return b;
  }
}

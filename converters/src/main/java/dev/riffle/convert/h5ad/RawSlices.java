package dev.riffle.convert.h5ad;

import dev.riffle.convert.InputException;
import io.jhdf.AbstractNode;
import io.jhdf.api.Dataset;
import io.jhdf.dataset.ContiguousDatasetImpl;
import io.jhdf.dataset.chunked.Chunk;
import io.jhdf.object.datatype.DataType;
import io.jhdf.object.datatype.FixedPoint;
import io.jhdf.object.datatype.FloatingPoint;
import io.jhdf.object.datatype.OrderedDataType;
import io.jhdf.object.message.FilterPipelineMessage;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Collection;
import org.apache.arrow.memory.ArrowBuf;

/**
 * Reads runs of a 1-D numeric dataset that HDF5 stores as plain little-endian bytes (no filter:
 * anndata's default) with positional reads straight into Arrow memory.
 *
 * <p>Why: jhdf maps each chunk, copies it into a fresh array, copies the slice's part into another,
 * converts that into a typed array, which the converter then copies into the vector: four copies
 * and three zeroed allocations per byte of X, plus a map and an unmap per chunk. That was the
 * reading thread's main cost. Here the kernel copies the bytes once, adjacent chunks (h5py writes
 * them one after the other) in one read, and each dataset has its own channel, so that the kernel's
 * readahead follows indices and data as two sequential streams.
 */
final class RawSlices implements AutoCloseable {
  private final String file;
  private final String path;
  private final FileChannel channel;
  private final long base;
  private final int width;
  private final long length;

  /** Elements per chunk; the whole length for a contiguous dataset. */
  private final long chunk;

  /** File offset of each chunk in order, -1 for one never written (zeros: anndata's fill). */
  private final long[] chunkAt;

  private RawSlices(
      String file,
      String path,
      FileChannel channel,
      long base,
      int width,
      long length,
      long chunk,
      long[] at) {
    this.file = file;
    this.path = path;
    this.channel = channel;
    this.base = base;
    this.width = width;
    this.length = length;
    this.chunk = chunk;
    this.chunkAt = at;
  }

  /**
   * A reader of {@code d} if it is 1-D, unfiltered, little-endian with elements of {@code width}
   * bytes (an integer or float type, as {@link Values#arrowType} names it), else null: then jhdf
   * reads it.
   *
   * @param file the input's name, for messages
   */
  static RawSlices of(String file, Dataset d, int width) throws IOException {
    long[] dims = d.getDimensionsAsLong();
    DataType t = d.getDataType();
    if (dims.length != 1
        || !(t instanceof FixedPoint || t instanceof FloatingPoint)
        || t.getSize() != width
        || ((OrderedDataType) t).getByteOrder() != ByteOrder.LITTLE_ENDIAN
        || d.getHdfFile().getFileAsPath() == null) {
      return null;
    }
    long chunk;
    long[] at;
    if (d instanceof ContiguousDatasetImpl) {
      long address = ((ContiguousDatasetImpl) d).getDataAddress();
      if (address < 0 || dims[0] == 0) {
        return null;
      }
      chunk = Math.max(1, dims[0]);
      at = new long[] {address};
    } else {
      var header = ((AbstractNode) d).getHeader();
      if (header.hasMessageOfType(FilterPipelineMessage.class)
          && !header.getMessageOfType(FilterPipelineMessage.class).getFilters().isEmpty()) {
        return null;
      }
      Collection<Chunk> chunks = FilterMasks.chunkIndex(d);
      if (chunks == null) {
        return null;
      }
      chunk = ((io.jhdf.api.dataset.ChunkedDataset) d).getChunkDimensions()[0];
      if (chunk <= 0) {
        return null;
      }
      at = new long[Math.toIntExact((dims[0] + chunk - 1) / chunk)];
      Arrays.fill(at, -1);
      for (Chunk c : chunks) {
        if (c.getAddress() < 0) {
          continue; // listed but never written (the v4 indexes do that): zeros too
        }
        long k = c.getChunkOffset()[0] / chunk;
        if (k < 0 || k >= at.length || c.getSize() < chunk * width) {
          return null; // not what an unfiltered chunk looks like: let jhdf judge it
        }
        at[(int) k] = c.getAddress();
      }
    }
    FileChannel ch = FileChannel.open(d.getHdfFile().getFileAsPath(), StandardOpenOption.READ);
    return new RawSlices(
        file, d.getPath(), ch, d.getHdfFile().getUserBlockSize(), width, dims[0], chunk, at);
  }

  /** Copies elements [start, start + n) to {@code dst} from byte 0. */
  void read(long start, int n, ArrowBuf dst) throws IOException {
    if (start < 0 || n < 0 || start + n > length) {
      throw new IllegalArgumentException(
          path + ": elements " + start + " + " + n + " outside " + length);
    }
    long pos = start;
    long end = start + n;
    long to = 0;
    while (pos < end) {
      int k = (int) (pos / chunk);
      long runEnd = Math.min(end, (k + 1) * chunk);
      // Adjacent chunks that lie one after the other in the file are read together.
      while (runEnd < end
          && chunkAt[k] >= 0
          && chunkAt[(int) (runEnd / chunk)] == chunkAt[k] + (runEnd / chunk - k) * chunk * width) {
        runEnd = Math.min(end, runEnd + chunk);
      }
      long bytes = (runEnd - pos) * width;
      if (chunkAt[k] < 0) {
        dst.setZero(to, bytes);
      } else {
        long from = base + chunkAt[k] + (pos - (long) k * chunk) * width;
        ByteBuffer b = dst.nioBuffer(to, Math.toIntExact(bytes));
        while (b.hasRemaining()) {
          if (channel.read(b, from + b.position()) < 0) {
            throw new InputException(
                file,
                path
                    + ": the file ends inside the data (byte "
                    + (from + b.position())
                    + "); truncated?");
          }
        }
      }
      to += bytes;
      pos = runEnd;
    }
  }

  @Override
  public void close() throws IOException {
    channel.close();
  }
}

package dev.riffle.stage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.security.MessageDigest;
import java.util.HexFormat;

/**
 * SHA-256 of a file whose parts arrive in any order, computed while later parts still download (a
 * plain SHA-256, as the manifest stores, so parts cannot be hashed in parallel). The thread that
 * completes the next part in order hashes it from its own buffer, then every part after it that has
 * landed: from the buffer the part lent ({@link PartBuffers}) or, if none was free to lend, read
 * back from the file. At most one thread hashes at a time; the digest needs no other lock.
 */
final class OrderedHasher {
  private static final int CHUNK = 1 << 20;

  private final MessageDigest digest = CacheLayout.sha256();
  private final boolean[] done;
  private final ByteBuffer[] lent;
  private final long partBytes;
  private final long length;
  private final PartBuffers buffers;
  private int next;
  private boolean draining;

  /** Parts read back from the file because no buffer could be lent (for tests and tuning). */
  private int readBack;

  OrderedHasher(int parts, long partBytes, long length, PartBuffers buffers) {
    this.done = new boolean[parts];
    this.lent = new ByteBuffer[parts];
    this.partBytes = partBytes;
    this.length = length;
    this.buffers = buffers;
  }

  /**
   * Marks part {@code i} written and hashes every part now in order.
   *
   * @param data the part's bytes (position to limit), already written to {@code ch}
   * @return true if this hasher kept {@code data} (it repays it to the pool when hashed): the
   *     caller must not reuse it; false if the caller still owns it
   */
  boolean partDone(int i, ByteBuffer data, FileChannel ch) throws IOException {
    synchronized (this) {
      done[i] = true;
      if (draining || i != next) {
        // Another thread hashes, or a part before this one is missing: lend the bytes if a loan
        // is free, else they are read back from the file when their turn comes.
        if (buffers.tryLend()) {
          lent[i] = data;
          return true;
        }
        return false;
      }
      draining = true;
    }
    ByteBuffer buf = null;
    try {
      // Part i is next in order: hash it from memory, then whatever landed behind it.
      digest.update(data.duplicate());
      synchronized (this) {
        next++;
      }
      while (true) {
        int k;
        ByteBuffer mem;
        synchronized (this) {
          if (next >= done.length || !done[next]) {
            draining = false;
            return false;
          }
          k = next;
          mem = lent[k];
          lent[k] = null;
        }
        if (mem != null) {
          digest.update(mem.duplicate());
          buffers.repay(mem);
        } else {
          if (buf == null) {
            buf = ByteBuffer.allocate(CHUNK);
          }
          hashRange(ch, k * partBytes, Math.min(partBytes, length - k * partBytes), buf);
          synchronized (this) {
            readBack++;
          }
        }
        synchronized (this) {
          next++;
        }
      }
    } catch (IOException | RuntimeException e) {
      synchronized (this) {
        draining = false;
      }
      throw e;
    }
  }

  private void hashRange(FileChannel ch, long offset, long n, ByteBuffer buf) throws IOException {
    long at = offset;
    long end = offset + n;
    while (at < end) {
      buf.clear();
      buf.limit((int) Math.min(buf.capacity(), end - at));
      while (buf.hasRemaining()) {
        int r = ch.read(buf, at + buf.position());
        if (r < 0) {
          throw new IOException("temporary file shrank while hashing at offset " + at);
        }
      }
      buf.flip();
      at += buf.remaining();
      digest.update(buf);
    }
  }

  /** Parts hashed from the file rather than from memory. */
  synchronized int readBack() {
    return readBack;
  }

  /** Repays every buffer still lent (the file failed; nothing more will be hashed). */
  synchronized void release() {
    for (int i = 0; i < lent.length; i++) {
      if (lent[i] != null) {
        buffers.repay(lent[i]);
        lent[i] = null;
      }
    }
  }

  /** The hex SHA-256; call once, after every part is done. */
  synchronized String hex() {
    if (next != done.length) {
      throw new IllegalStateException("hashed " + next + " of " + done.length + " parts");
    }
    return HexFormat.of().formatHex(digest.digest());
  }
}

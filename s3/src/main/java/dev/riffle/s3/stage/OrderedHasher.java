package dev.riffle.s3.stage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.security.MessageDigest;
import java.util.HexFormat;

/**
 * SHA-256 of a file whose parts arrive in any order: each finished part is marked, and whichever
 * thread finds the next part in order finished hashes forward from the file (the page cache still
 * holds it) while the other parts keep downloading. So the hash is done soon after the last part,
 * not a full pass after it. At most one thread hashes at a time; the digest needs no other lock.
 */
final class OrderedHasher {
  private static final int CHUNK = 1 << 20;

  private final MessageDigest digest = CacheLayout.sha256();
  private final boolean[] done;
  private final long partBytes;
  private final long length;
  private int next;
  private boolean draining;

  OrderedHasher(int parts, long partBytes, long length) {
    this.done = new boolean[parts];
    this.partBytes = partBytes;
    this.length = length;
  }

  /** Marks part {@code i} written and hashes every part now in order. */
  void partDone(int i, FileChannel ch) throws IOException {
    synchronized (this) {
      done[i] = true;
      if (draining) {
        return;
      }
      draining = true;
    }
    ByteBuffer buf = null;
    while (true) {
      int k;
      synchronized (this) {
        if (next >= done.length || !done[next]) {
          draining = false;
          return;
        }
        k = next;
      }
      if (buf == null) {
        buf = ByteBuffer.allocate(CHUNK);
      }
      try {
        hashRange(ch, k * partBytes, Math.min(partBytes, length - k * partBytes), buf);
      } catch (IOException | RuntimeException e) {
        synchronized (this) {
          draining = false;
        }
        throw e;
      }
      synchronized (this) {
        next++;
      }
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

  /** The hex SHA-256; call once, after every part is done. */
  synchronized String hex() {
    if (next != done.length) {
      throw new IllegalStateException("hashed " + next + " of " + done.length + " parts");
    }
    return HexFormat.of().formatHex(digest.digest());
  }
}

package dev.riffle.s3.lazy;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.zip.CRC32C;

/**
 * Chunks of remote objects on local disk: {@code DIR/<object key>/<chunk index>.chunk} holds the
 * chunk's bytes followed by their CRC32C (4 bytes, big-endian). Files are written to a temporary
 * name and moved into place, so a reader never sees half a chunk; the CRC catches anything else (a
 * torn disk write, a stray edit). A chunk is verified the first time this cache reads it and
 * trusted after that; a bad one is deleted and counts as a miss, so the caller fetches it again.
 *
 * <p>Several processes may share the directory: each keeps its own LRU order of the chunks it knows
 * and deletes beyond its limit; a chunk deleted by another process is a miss.
 */
public final class ChunkCache {
  static final String SUFFIX = ".chunk";

  private final Path dir;
  private final long maxBytes;
  private final LazyStats stats;
  private final Set<Path> verified = ConcurrentHashMap.newKeySet();

  /** Chunk files by recency (access order) with their sizes; guarded by itself. */
  private final LinkedHashMap<Path, Long> lru = new LinkedHashMap<>(16, 0.75f, true);

  private long usedBytes;

  /** Opens (creating) the cache directory and takes stock of the chunks already there. */
  public ChunkCache(Path dir, long maxBytes, LazyStats stats) throws IOException {
    Files.createDirectories(dir);
    this.dir = dir.toRealPath();
    this.maxBytes = maxBytes;
    this.stats = stats;
    List<Path> existing = new ArrayList<>();
    try (DirectoryStream<Path> objects = Files.newDirectoryStream(this.dir)) {
      for (Path o : objects) {
        if (Files.isDirectory(o)) {
          try (DirectoryStream<Path> chunks = Files.newDirectoryStream(o, "*" + SUFFIX)) {
            chunks.forEach(existing::add);
          }
        }
      }
    }
    Map<Path, Long> mtime = new LinkedHashMap<>();
    for (Path p : existing) {
      mtime.put(p, Files.getLastModifiedTime(p).toMillis());
    }
    existing.sort(Comparator.comparing(mtime::get));
    synchronized (lru) {
      for (Path p : existing) {
        long size = Files.size(p);
        lru.put(p, size);
        usedBytes += size;
      }
      trim();
    }
  }

  public Path dir() {
    return dir;
  }

  /** Bytes of chunk files this cache knows of. */
  public long usedBytes() {
    synchronized (lru) {
      return usedBytes;
    }
  }

  Path chunkFile(String key, long index) {
    return dir.resolve(key).resolve(index + SUFFIX);
  }

  /**
   * Copies {@code dst.remaining()} bytes from {@code offset} within chunk {@code index} into {@code
   * dst} if the chunk is cached and sound, and returns whether it was.
   *
   * @param chunkLength the chunk's length (the last chunk of an object is shorter)
   */
  boolean read(String key, long index, int chunkLength, int offset, ByteBuffer dst)
      throws IOException {
    Path file = chunkFile(key, index);
    try {
      if (verified.contains(file)) {
        int start = dst.position();
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
          readFully(ch, offset, dst);
        } catch (EOFException e) {
          // Truncated since it was verified: as bad as a wrong CRC.
          dst.position(start);
          stats.corruptChunks.increment();
          Files.deleteIfExists(file);
          forget(file);
          return false;
        }
      } else {
        ByteBuffer whole = verify(file, chunkLength);
        if (whole == null) {
          return false;
        }
        dst.put(whole.limit(offset + dst.remaining()).position(offset));
      }
    } catch (NoSuchFileException e) {
      // Never cached, or evicted (here or by another process sharing the directory).
      forget(file);
      return false;
    }
    synchronized (lru) {
      lru.get(file);
    }
    return true;
  }

  /** The chunk's bytes if its length and CRC32C are right; else deletes it and returns null. */
  private ByteBuffer verify(Path file, int chunkLength) throws IOException {
    byte[] bytes = Files.readAllBytes(file);
    boolean ok = bytes.length == chunkLength + 4;
    if (ok) {
      CRC32C crc = new CRC32C();
      crc.update(bytes, 0, chunkLength);
      ok = (int) crc.getValue() == ByteBuffer.wrap(bytes, chunkLength, 4).getInt();
    }
    if (!ok) {
      stats.corruptChunks.increment();
      Files.deleteIfExists(file);
      forget(file);
      return null;
    }
    verified.add(file);
    return ByteBuffer.wrap(bytes, 0, chunkLength).slice();
  }

  /** Stores a chunk (the remaining bytes of {@code data}, which are left unconsumed). */
  void put(String key, long index, ByteBuffer data) throws IOException {
    Path file = chunkFile(key, index);
    Files.createDirectories(file.getParent());
    Path temp =
        file.resolveSibling(
            "."
                + file.getFileName()
                + "."
                + Long.toHexString(ThreadLocalRandom.current().nextLong())
                + ".tmp");
    ByteBuffer body = data.duplicate();
    CRC32C crc = new CRC32C();
    crc.update(body.duplicate());
    ByteBuffer trailer = ByteBuffer.allocate(4).putInt(0, (int) crc.getValue());
    long size = body.remaining() + 4L;
    try {
      // No fsync: a chunk lost or torn in a crash fails its CRC and is fetched again.
      try (FileChannel ch =
          FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
        while (body.hasRemaining()) {
          ch.write(body);
        }
        while (trailer.hasRemaining()) {
          ch.write(trailer);
        }
      }
      Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } finally {
      Files.deleteIfExists(temp);
    }
    verified.add(file);
    synchronized (lru) {
      Long old = lru.put(file, size);
      usedBytes += size - (old == null ? 0 : old);
      trim();
    }
  }

  private void forget(Path file) {
    verified.remove(file);
    synchronized (lru) {
      Long old = lru.remove(file);
      if (old != null) {
        usedBytes -= old;
      }
    }
  }

  /** Deletes least recently used chunks beyond the limit; callers hold the lru lock. */
  private void trim() {
    Iterator<Map.Entry<Path, Long>> it = lru.entrySet().iterator();
    while (usedBytes > maxBytes && it.hasNext()) {
      Map.Entry<Path, Long> e = it.next();
      it.remove();
      usedBytes -= e.getValue();
      verified.remove(e.getKey());
      try {
        Files.deleteIfExists(e.getKey());
        stats.chunksEvicted.increment();
      } catch (IOException x) {
        // Left behind: counted again when a later cache takes stock.
      }
    }
  }

  private static void readFully(FileChannel ch, long position, ByteBuffer dst) throws IOException {
    long at = position;
    while (dst.hasRemaining()) {
      int n = ch.read(dst, at);
      if (n < 0) {
        throw new EOFException("chunk file ends at " + at);
      }
      at += n;
    }
  }
}

package dev.riffle.hadoop.lazy;

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
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.zip.CRC32C;

/**
 * Chunks and exact ranges of remote objects on local disk. {@code DIR/<object key>/<chunk
 * index>.chunk} holds an aligned chunk (what scans and load windows fetch), {@code DIR/<object
 * key>/<start>-<end>.range} the bytes [start, end) a take fetched exactly; either holds its bytes
 * followed by one CRC32C (4 bytes, big-endian) per block of {@link #blockBytes} of them. Files are
 * written to a temporary name and moved into place, so a reader never sees half a chunk; the CRCs
 * catch anything else (a torn disk write, a stray edit). A block is verified the first time this
 * cache reads from it and trusted after that, so a random 4 KiB read of a 1 MiB chunk checks 64
 * KiB, not the whole chunk; a bad chunk is deleted and counts as a miss, so the caller fetches it
 * again. (Chunks of at most one block have the layout of the single-CRC files of before; larger old
 * files fail the length check and are fetched again.)
 *
 * <p>Several processes may share the directory: each keeps its own LRU order of the chunks it knows
 * and deletes beyond its limit; a chunk deleted by another process is a miss.
 */
public final class ChunkCache {
  static final String SUFFIX = ".chunk";
  static final String RANGE_SUFFIX = ".range";

  private final Path dir;
  private final long maxBytes;
  private final LazyStats stats;

  /** Blocks verified so far, one bit per block (a chunk has at most 64). */
  private final Map<Path, Long> verified = new ConcurrentHashMap<>();

  /** The smallest verification block. */
  static final int MIN_BLOCK_BYTES = 64 << 10;

  /** Chunk files by recency (access order) with their sizes; guarded by itself. */
  private final LinkedHashMap<Path, Long> lru = new LinkedHashMap<>(16, 0.75f, true);

  private long usedBytes;

  /** Cached exact ranges per object key: start -> end, from the names of the range files. */
  private final Map<String, ConcurrentSkipListMap<Long, Long>> ranges = new ConcurrentHashMap<>();

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
          try (DirectoryStream<Path> rs = Files.newDirectoryStream(o, "*" + RANGE_SUFFIX)) {
            for (Path r : rs) {
              if (index(r)) {
                existing.add(r);
              }
            }
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

  Path rangeFile(String key, long start, long end) {
    return dir.resolve(key).resolve(start + "-" + end + RANGE_SUFFIX);
  }

  /** Adds a range file to the index of its object; false if its name is not one. */
  private boolean index(Path file) {
    String name = file.getFileName().toString();
    int dash = name.indexOf('-');
    if (!name.endsWith(RANGE_SUFFIX) || dash <= 0) {
      return false;
    }
    try {
      long start = Long.parseLong(name.substring(0, dash));
      long end = Long.parseLong(name.substring(dash + 1, name.length() - RANGE_SUFFIX.length()));
      if (start < 0 || end <= start || end - start > Integer.MAX_VALUE) {
        return false;
      }
      ranges
          .computeIfAbsent(
              file.getParent().getFileName().toString(), k -> new ConcurrentSkipListMap<>())
          .put(start, end);
      return true;
    } catch (NumberFormatException e) {
      return false;
    }
  }

  private void unindex(Path file) {
    String name = file.getFileName().toString();
    int dash = name.indexOf('-');
    if (!name.endsWith(RANGE_SUFFIX) || dash <= 0) {
      return;
    }
    Map<Long, Long> m = ranges.get(file.getParent().getFileName().toString());
    if (m != null) {
      try {
        m.remove(Long.parseLong(name.substring(0, dash)));
      } catch (NumberFormatException e) {
        // Not ours: never indexed.
      }
    }
  }

  /**
   * Copies {@code dst.remaining()} bytes from {@code offset} of the object into {@code dst} if one
   * cached range holds them all and is sound, and returns whether it did.
   */
  boolean readRange(String key, long offset, ByteBuffer dst) throws IOException {
    ConcurrentSkipListMap<Long, Long> m = ranges.get(key);
    Map.Entry<Long, Long> e = m == null ? null : m.floorEntry(offset);
    if (e == null || e.getValue() < offset + dst.remaining()) {
      return false;
    }
    return readFile(
        rangeFile(key, e.getKey(), e.getValue()),
        (int) (e.getValue() - e.getKey()),
        (int) (offset - e.getKey()),
        dst);
  }

  /** Stores the bytes [start, start + remaining) of an object (left unconsumed in {@code data}). */
  void putRange(String key, long start, ByteBuffer data) throws IOException {
    Path file = rangeFile(key, start, start + data.remaining());
    putFile(file, data);
    index(file);
  }

  /**
   * The verification block of a chunk of {@code chunkLength} bytes: 64 KiB, or more for chunks
   * above 4 MiB, so that a chunk has at most 64 blocks.
   */
  static int blockBytes(int chunkLength) {
    long pow2 = Long.highestOneBit(Math.max(1, chunkLength - 1L)) << 1;
    return (int) Math.max(MIN_BLOCK_BYTES, pow2 / 64);
  }

  static int blocks(int chunkLength) {
    int b = blockBytes(chunkLength);
    return Math.max(1, (chunkLength + b - 1) / b);
  }

  /** Bytes of the chunk file of a chunk of {@code chunkLength} bytes. */
  static long fileBytes(int chunkLength) {
    return chunkLength + 4L * blocks(chunkLength);
  }

  /**
   * Copies {@code dst.remaining()} bytes from {@code offset} within chunk {@code index} into {@code
   * dst} if the chunk is cached and sound, and returns whether it was.
   *
   * @param chunkLength the chunk's length (the last chunk of an object is shorter)
   */
  boolean read(String key, long index, int chunkLength, int offset, ByteBuffer dst)
      throws IOException {
    return readFile(chunkFile(key, index), chunkLength, offset, dst);
  }

  /** {@link #read} of any chunk or range file of {@code chunkLength} bytes of data. */
  private boolean readFile(Path file, int chunkLength, int offset, ByteBuffer dst)
      throws IOException {
    int n = dst.remaining();
    int bb = blockBytes(chunkLength);
    int first = offset / bb;
    int last = n == 0 ? first : (offset + n - 1) / bb;
    long wanted = blockMask(first, last);
    int start = dst.position();
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      Long seen = verified.get(file);
      long done = seen == null ? 0 : seen;
      if ((done & wanted) == wanted) {
        readFully(ch, offset, dst);
      } else if (!verifyAndCopy(ch, file, chunkLength, first, last, done, offset, dst)) {
        return false;
      }
    } catch (EOFException e) {
      // Shorter than when it was verified: as bad as a wrong CRC.
      dst.position(start);
      bad(file);
      return false;
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

  /**
   * Reads blocks {@code first..last} and their CRCs, checks those not in {@code done}, and copies
   * the wanted bytes to {@code dst}; deletes the chunk and returns false if its length or a CRC is
   * wrong.
   */
  private boolean verifyAndCopy(
      FileChannel ch,
      Path file,
      int chunkLength,
      int first,
      int last,
      long done,
      int offset,
      ByteBuffer dst)
      throws IOException {
    int bb = blockBytes(chunkLength);
    if (ch.size() != fileBytes(chunkLength)) {
      bad(file);
      return false;
    }
    int from = first * bb;
    int to = Math.min(chunkLength, (last + 1) * bb);
    ByteBuffer body = ByteBuffer.allocate(to - from);
    readFully(ch, from, body);
    ByteBuffer crcs = ByteBuffer.allocate(4 * (last - first + 1));
    readFully(ch, chunkLength + 4L * first, crcs);
    byte[] bytes = body.array();
    CRC32C crc = new CRC32C();
    for (int b = first; b <= last; b++) {
      if ((done & (1L << b)) != 0) {
        continue;
      }
      int at = b * bb - from;
      int len = Math.min(bb, to - from - at);
      stats.verifiedBytes.add(len);
      crc.reset();
      crc.update(bytes, at, len);
      if ((int) crc.getValue() != crcs.getInt(4 * (b - first))) {
        bad(file);
        return false;
      }
    }
    dst.put(bytes, offset - from, dst.remaining());
    verified.merge(file, blockMask(first, last), (x, y) -> x | y);
    return true;
  }

  /** Bits {@code first..last} (at most 63). */
  private static long blockMask(int first, int last) {
    long upTo = last == 63 ? -1L : (1L << (last + 1)) - 1;
    return upTo & -(1L << first);
  }

  private void bad(Path file) throws IOException {
    stats.corruptChunks.increment();
    Files.deleteIfExists(file);
    forget(file);
  }

  /** Stores a chunk (the remaining bytes of {@code data}, which are left unconsumed). */
  void put(String key, long index, ByteBuffer data) throws IOException {
    putFile(chunkFile(key, index), data);
  }

  private void putFile(Path file, ByteBuffer data) throws IOException {
    Files.createDirectories(file.getParent());
    Path temp =
        file.resolveSibling(
            "."
                + file.getFileName()
                + "."
                + Long.toHexString(ThreadLocalRandom.current().nextLong())
                + ".tmp");
    ByteBuffer body = data.duplicate();
    int length = body.remaining();
    int bb = blockBytes(length);
    int blocks = blocks(length);
    ByteBuffer trailer = ByteBuffer.allocate(4 * blocks);
    CRC32C crc = new CRC32C();
    for (int b = 0; b < blocks; b++) {
      int from = body.position() + b * bb;
      crc.reset();
      crc.update(body.duplicate().position(from).limit(Math.min(body.limit(), from + bb)));
      trailer.putInt((int) crc.getValue());
    }
    trailer.flip();
    long size = fileBytes(length);
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
    verified.put(file, blockMask(0, blocks - 1));
    synchronized (lru) {
      Long old = lru.put(file, size);
      usedBytes += size - (old == null ? 0 : old);
      trim();
    }
  }

  private void forget(Path file) {
    unindex(file);
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
      unindex(e.getKey());
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

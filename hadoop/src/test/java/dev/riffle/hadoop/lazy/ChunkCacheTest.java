package dev.riffle.hadoop.lazy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Chunk files carry a CRC32C per 64 KiB block; a read checks only the blocks it touches. */
class ChunkCacheTest {
  static final int MIB = 1 << 20;
  static final int BLOCK = 64 << 10;

  @TempDir Path dir;
  byte[] chunk;

  @BeforeEach
  void putOneChunk() throws Exception {
    chunk = new byte[MIB];
    new SplittableRandom(5).nextBytes(chunk);
    new ChunkCache(dir, 64L * MIB, new LazyStats()).put("obj", 3, ByteBuffer.wrap(chunk));
  }

  /** A cache as a new process sees it: nothing verified yet. */
  ChunkCache reopened(LazyStats stats) throws Exception {
    return new ChunkCache(dir, 64L * MIB, stats);
  }

  byte[] read(ChunkCache c, int offset, int n) throws Exception {
    ByteBuffer dst = ByteBuffer.allocateDirect(n);
    return c.read("obj", 3, MIB, offset, dst) ? bytesOf(dst.flip()) : null;
  }

  static byte[] bytesOf(ByteBuffer b) {
    byte[] out = new byte[b.remaining()];
    b.get(out);
    return out;
  }

  @Test
  void layoutAndBlockSizes() throws Exception {
    Path file = dir.resolve("obj").resolve("3" + ChunkCache.SUFFIX);
    assertThat(Files.size(file)).isEqualTo(MIB + 4L * 16);
    assertThat(ChunkCache.blockBytes(MIB)).isEqualTo(BLOCK);
    assertThat(ChunkCache.blocks(MIB - 1000)).isEqualTo(16);
    // Up to one block: the single-CRC layout of before.
    assertThat(ChunkCache.fileBytes(BLOCK)).isEqualTo(BLOCK + 4L);
    assertThat(ChunkCache.fileBytes(4096)).isEqualTo(4100L);
    // Huge chunks keep at most 64 blocks.
    assertThat(ChunkCache.blocks(1 << 30)).isEqualTo(64);
    byte[] raw = Files.readAllBytes(file);
    CRC32C crc = new CRC32C();
    crc.update(raw, 5 * BLOCK, BLOCK);
    assertThat(ByteBuffer.wrap(raw, MIB + 4 * 5, 4).getInt()).isEqualTo((int) crc.getValue());
  }

  @Test
  void aReadVerifiesOnlyTheBlocksItTouchesOnce() throws Exception {
    LazyStats stats = new LazyStats();
    ChunkCache c = reopened(stats);
    assertThat(read(c, 300_000, 100)).isEqualTo(Arrays.copyOfRange(chunk, 300_000, 300_100));
    assertThat(stats.verifiedBytes()).isEqualTo(BLOCK);
    // Across a block boundary: the second block is checked, the first is not checked again.
    int at = 5 * BLOCK - 10;
    assertThat(read(c, at, 20)).isEqualTo(Arrays.copyOfRange(chunk, at, at + 20));
    assertThat(stats.verifiedBytes()).isEqualTo(2L * BLOCK);
    assertThat(read(c, 300_000, 5000)).isEqualTo(Arrays.copyOfRange(chunk, 300_000, 305_000));
    assertThat(stats.verifiedBytes()).isEqualTo(2L * BLOCK);
    assertThat(stats.corruptChunks()).isZero();
  }

  @Test
  void aFlippedByteIsCaughtWhenItsBlockIsRead() throws Exception {
    Path file = dir.resolve("obj").resolve("3" + ChunkCache.SUFFIX);
    try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
      raf.seek(10L * BLOCK + 5);
      int b = raf.read();
      raf.seek(10L * BLOCK + 5);
      raf.write(b ^ 0x10);
    }
    LazyStats stats = new LazyStats();
    ChunkCache c = reopened(stats);
    assertThat(read(c, 0, 4096)).isEqualTo(Arrays.copyOf(chunk, 4096));
    assertThat(read(c, 10 * BLOCK, 4096)).isNull();
    assertThat(stats.corruptChunks()).isEqualTo(1);
    assertThat(file).doesNotExist();
    assertThat(c.usedBytes()).isZero();
    assertThat(read(c, 0, 4096)).isNull();
  }

  @Test
  void anOldSingleCrcFileOrATruncatedOneIsAMiss() throws Exception {
    Path file = dir.resolve("obj").resolve("3" + ChunkCache.SUFFIX);
    LazyStats stats = new LazyStats();
    ChunkCache c = reopened(stats);
    assertThat(read(c, 0, 10)).isNotNull();
    try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
      raf.setLength(MIB + 4);
    }
    // Block 0 was verified before; the bytes are still there but the file is not what was checked.
    assertThat(read(c, MIB - 10, 10)).isNull();
    assertThat(stats.corruptChunks()).isEqualTo(1);
    assertThat(file).doesNotExist();
  }
}

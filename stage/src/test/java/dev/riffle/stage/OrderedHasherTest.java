package dev.riffle.stage;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Parts landing out of order still give the file's plain SHA-256, from memory where lent. */
class OrderedHasherTest {
  @TempDir Path dir;

  @Test
  void outOfOrderPartsHashLikeTheWholeFile() throws Exception {
    int partBytes = 4096;
    byte[] file = new byte[5 * partBytes + 100];
    new Random(3).nextBytes(file);
    String expected = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(file));
    // One loan: part 4 takes it, so parts 1, 2 and 5 (landing while 4 holds it) are read back.
    PartBuffers buffers = new PartBuffers(partBytes, 1);
    try (FileChannel ch =
        FileChannel.open(
            dir.resolve("f"),
            StandardOpenOption.CREATE_NEW,
            StandardOpenOption.READ,
            StandardOpenOption.WRITE)) {
      OrderedHasher h = new OrderedHasher(6, partBytes, file.length, buffers);
      for (int part : List.of(4, 2, 1, 0, 5, 3)) {
        int from = part * partBytes;
        int n = Math.min(partBytes, file.length - from);
        ByteBuffer data = ByteBuffer.wrap(file.clone(), from, n).slice();
        ch.write(data.duplicate(), from);
        boolean kept = h.partDone(part, data, ch);
        assertThat(kept).as("part %d kept", part).isEqualTo(part == 4);
        if (!kept) {
          // The caller reuses its buffer at once: the hash must not depend on it.
          data.duplicate().put(new byte[n]);
        }
      }
      assertThat(h.hex()).isEqualTo(expected);
      assertThat(h.readBack()).isEqualTo(3);
      assertThat(buffers.lent()).isZero();
    }
  }
}

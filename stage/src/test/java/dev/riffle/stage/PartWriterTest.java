package dev.riffle.stage;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Parts written around the page cache, or through it, give the same file. */
class PartWriterTest {
  @TempDir Path dir;

  @Test
  void directAndBufferedWritesGiveTheSameBytes() throws Exception {
    int part = 3 * 4096;
    byte[] bytes = new byte[5 * part + 1234];
    new Random(9).nextBytes(bytes);
    for (boolean direct : new boolean[] {true, false}) {
      Path f = dir.resolve("f" + direct);
      try (FileChannel ch =
              FileChannel.open(
                  f,
                  StandardOpenOption.CREATE_NEW,
                  StandardOpenOption.READ,
                  StandardOpenOption.WRITE);
          PartWriter w =
              PartWriter.open(f, ch, direct ? new PartWriter.Aligned(part, dir) : null)) {
        if (!direct) {
          assertThat(w.isDirect()).isFalse();
        }
        // Out of order, as parallel parts land; the last part has an unaligned tail.
        for (int p : new int[] {5, 1, 3, 0, 4, 2}) {
          int from = p * part;
          ByteBuffer data =
              ByteBuffer.wrap(bytes, from, Math.min(part, bytes.length - from)).slice();
          int before = data.position();
          w.write(data, from);
          assertThat(data.position()).isEqualTo(before);
        }
        ch.force(true);
      }
      assertThat(Files.readAllBytes(f)).isEqualTo(bytes);
    }
  }
}

package dev.riffle.hadoop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.riffle.format.io.RandomAccessSource;
import dev.riffle.format.io.RandomAccessSource.Range;
import java.io.EOFException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link RandomAccessSource#readRanges} on {@link HadoopSource}: equal to one-by-one reads, on
 * {@code file:}; {@code RangeReadS3IT} checks a take on {@code s3a:}.
 */
class RangeReadTest {
  @TempDir Path dir;

  @Test
  void rangesEqualTheBytesIncludingOverlapsAndEmptyOnes() throws Exception {
    byte[] bytes = new byte[300_000];
    new SplittableRandom(5).nextBytes(bytes);
    Files.write(dir.resolve("obj"), bytes);
    SplittableRandom r = new SplittableRandom(6);
    try (HadoopStorage s = new HadoopStorage(dir.toUri().toString(), new Configuration());
        RandomAccessSource src = s.open("obj")) {
      for (int round = 0; round < 20; round++) {
        List<Range> ranges = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
          int n = i == 7 ? 0 : r.nextInt(1, 20_000);
          long off = r.nextLong(bytes.length - n + 1);
          ByteBuffer dst =
              i % 3 == 0 ? ByteBuffer.allocateDirect(n + 2) : ByteBuffer.allocate(n + 2);
          dst.position(2);
          ranges.add(new Range(off, dst));
        }
        src.readRanges(ranges);
        for (Range g : ranges) {
          ByteBuffer dst = g.dst();
          assertThat(dst.hasRemaining()).isFalse();
          byte[] got = new byte[dst.limit() - 2];
          dst.position(2).get(got);
          int from = (int) g.offset();
          assertThat(got).isEqualTo(Arrays.copyOfRange(bytes, from, from + got.length));
        }
      }
      assertThatThrownBy(
              () ->
                  src.readRanges(
                      List.of(
                          new Range(0, ByteBuffer.allocate(10)),
                          new Range(bytes.length - 5, ByteBuffer.allocate(10)))))
          .isInstanceOf(EOFException.class)
          .hasMessageContaining("obj")
          .hasMessageContaining("offset " + (bytes.length - 5));
    }
  }
}

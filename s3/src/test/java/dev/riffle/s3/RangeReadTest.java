package dev.riffle.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.riffle.dataset.Manifest;
import dev.riffle.dataset.storage.LocalStorage;
import dev.riffle.format.io.RandomAccessSource;
import dev.riffle.format.io.RandomAccessSource.Range;
import dev.riffle.format.read.FileReader;
import dev.riffle.s3.lazy.LazyStorageTest;
import dev.riffle.s3.stage.LocalS3;
import dev.riffle.s3.stage.TestDatasets;
import java.io.EOFException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.statistics.IOStatistics;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link RandomAccessSource#readRanges} on {@link HadoopSource}: equal to one-by-one reads, on
 * {@code file:} and, against the local Ceph RGW, a take as one {@code readVectored} call.
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

  @Test
  void s3TakeIsOneVectoredReadAndEqualsALocalTake() throws Exception {
    Configuration conf = LocalS3.conf(LocalS3.endpoint().toString());
    String uri = "s3a://" + LocalS3.bucket() + "/range-read-test/" + UUID.randomUUID();
    try (HadoopStorage s3 = new HadoopStorage(uri, conf);
        BufferAllocator a = new RootAllocator()) {
      Manifest m = TestDatasets.write(s3, 1_500_000, 4_000_000, 31);
      assertThat(m.files()).hasSize(1);
      Manifest.DataFile f = m.files().get(0);
      Path local = dir.resolve("copy.riffle");
      Files.write(local, s3.readAll(f.path()));
      long[] rows = LazyStorageTest.randomRows(f.rowCount(), 48, 8);
      try (HadoopSource src = (HadoopSource) s3.open(f.path());
          FileReader remote = FileReader.open(src, false, a);
          FileReader plain = FileReader.open(new LocalStorage(dir).open("copy.riffle"), true, a)) {
        assertThat(src.isRemote()).isTrue();
        // The first take reads each column's search metadata; count the second one only.
        remote.take(new long[] {0}, null).close();
        long vectored = counter(src.ioStatistics(), "stream_read_vectored_operations");
        long opened = counter(src.ioStatistics(), "stream_read_opened");
        try (VectorSchemaRoot got = remote.take(rows, null);
            VectorSchemaRoot want = plain.take(rows, null)) {
          assertThat(LazyStorageTest.describe(got)).isEqualTo(LazyStorageTest.describe(want));
        }
        assertThat(counter(src.ioStatistics(), "stream_read_vectored_operations") - vectored)
            .isEqualTo(1);
        // No GET outside the vectored read.
        assertThat(counter(src.ioStatistics(), "stream_read_opened")).isEqualTo(opened);
      }
    }
  }

  private static long counter(IOStatistics stats, String name) {
    Long v = stats.counters().get(name);
    return v == null ? 0 : v;
  }
}

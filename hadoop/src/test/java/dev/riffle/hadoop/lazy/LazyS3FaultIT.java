package dev.riffle.hadoop.lazy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.Manifest;
import dev.riffle.format.CorruptFileException;
import dev.riffle.hadoop.HadoopStorage;
import dev.riffle.hadoop.testing.LocalS3;
import dev.riffle.hadoop.testing.TestDatasets;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.UUID;
import java.util.stream.LongStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Lazy reads of damaged snapshots on the local Ceph RGW: a missing or truncated object, and one
 * truncated while a dataset has it open, each end in a checked exception naming the object (and the
 * offset, where there is one), and the chunk cache keeps nothing wrong. Skipped without the server
 * unless {@code RIFFLE_S3_REQUIRED=1}.
 */
class LazyS3FaultIT {
  static final LazyOptions OPTIONS =
      LazyOptions.defaults().withChunkBytes(64 << 10).withGapBytes(64 << 10);

  @TempDir Path dir;
  private Configuration conf;
  private String uri;
  private Manifest manifest;

  @BeforeEach
  void writeDataset() throws IOException {
    conf = LocalS3.conf(LocalS3.endpoint().toString());
    uri = "s3a://" + LocalS3.bucket() + "/lazy-fault-test/" + UUID.randomUUID();
    try (HadoopStorage s = new HadoopStorage(uri, conf)) {
      manifest = TestDatasets.write(s, 700_000, 350_000, 41);
    }
    assertThat(manifest.files().size()).isGreaterThan(1);
  }

  private LazyStorage lazy() throws IOException {
    return new LazyStorage(new HadoopStorage(uri, conf), dir.resolve("chunks"), OPTIONS);
  }

  private static long[] rowsOf(Manifest.DataFile f) {
    return LongStream.range(f.firstRow(), f.firstRow() + f.rowCount()).toArray();
  }

  private void truncate(Manifest.DataFile f, int keep) throws IOException {
    try (HadoopStorage s = new HadoopStorage(uri, conf)) {
      byte[] bytes = s.readAll(f.path());
      try (OutputStream out = s.create(f.path())) {
        out.write(bytes, 0, keep);
      }
    }
  }

  @Test
  void missingObjectIsNamed() throws Exception {
    Manifest.DataFile gone = manifest.files().get(1);
    try (HadoopStorage s = new HadoopStorage(uri, conf)) {
      s.delete(gone.path());
    }
    try (LazyStorage lazy = lazy();
        BufferAllocator a = new RootAllocator();
        Dataset d = Dataset.open(lazy, a)) {
      assertThatThrownBy(() -> d.take(new long[] {gone.firstRow()}, null).close())
          .isInstanceOf(NoSuchFileException.class)
          .hasMessageContaining(uri + "/" + gone.path());
    }
  }

  @Test
  void truncatedObjectIsACorruptFileNamingItAndTheOffset() throws Exception {
    Manifest.DataFile bad = manifest.files().get(0);
    truncate(bad, (int) bad.byteLength() - 1000);
    try (LazyStorage lazy = lazy();
        BufferAllocator a = new RootAllocator();
        Dataset d = Dataset.open(lazy, a)) {
      assertThatThrownBy(() -> d.take(new long[] {bad.firstRow()}, null).close())
          .isInstanceOf(CorruptFileException.class)
          .hasMessageContaining(uri + "/" + bad.path() + " at offset 0")
          .hasMessageContaining("the manifest of version 1 says " + bad.byteLength());
      assertThat(lazy.stats().remoteRequests()).isZero();
    }
  }

  @Test
  void objectTruncatedWhileOpenIsACheckedErrorNamingItAndTheOffset() throws Exception {
    truncatedWhileOpen("changed while it was open");
  }

  @Test
  void withoutChangeDetectionTheObjectEndsEarly() throws Exception {
    conf.set("fs.s3a.change.detection.mode", "none");
    truncatedWhileOpen("file ends inside");
  }

  private void truncatedWhileOpen(String why) throws Exception {
    Manifest.DataFile bad = manifest.files().get(0);
    try (LazyStorage lazy = lazy();
        BufferAllocator a = new RootAllocator();
        Dataset d = Dataset.open(lazy, a)) {
      // Opens the file (footer, metadata) and caches the chunks of its first row only.
      d.take(new long[] {bad.firstRow()}, null).close();
      long chunks = lazy.cache().usedBytes();
      truncate(bad, 100_000);
      long[] rows = rowsOf(bad);
      long[] tail = java.util.Arrays.copyOfRange(rows, rows.length / 2, rows.length);
      Throwable e =
          org.assertj.core.api.Assertions.catchThrowable(() -> d.take(tail, null).close());
      assertThat(e).isInstanceOf(IOException.class).hasMessageContaining(uri + "/" + bad.path());
      assertThat(e.getMessage()).containsPattern("offset \\d+");
      assertThat(e.getMessage()).contains(why);
      // Nothing of the failed fetch was cached.
      assertThat(lazy.cache().usedBytes()).isEqualTo(chunks);
    }
  }
}

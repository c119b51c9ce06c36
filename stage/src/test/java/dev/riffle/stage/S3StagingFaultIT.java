package dev.riffle.stage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.riffle.dataset.DatasetValidator;
import dev.riffle.dataset.Manifest;
import dev.riffle.dataset.storage.LocalStorage;
import dev.riffle.format.CorruptFileException;
import dev.riffle.hadoop.HadoopStorage;
import dev.riffle.hadoop.testing.FaultProxy;
import dev.riffle.hadoop.testing.LocalS3;
import dev.riffle.hadoop.testing.TestDatasets;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fault cases of staging against the real Ceph RGW ({@code scripts/start-local-s3.sh}), each
 * ending in a verified snapshot or a clear error with nothing corrupt in the cache. The server is
 * shared with other tests and never stopped: a {@link FaultProxy} in front of it plays the server
 * that dies mid-transfer. Skipped without a server unless {@code RIFFLE_S3_REQUIRED=1}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class S3StagingFaultIT {
  static final StageOptions OPTIONS =
      StageOptions.defaults().withPartBytes(256 << 10).withThreads(4).withRetries(12, 100, 1000);

  private final AtomicInteger counter = new AtomicInteger();
  private URI endpoint;
  private Configuration direct;
  private String runRoot;
  private FaultProxy proxy;
  @TempDir Path dir;
  private Path cache;

  @BeforeAll
  void connect() throws IOException {
    endpoint = LocalS3.endpoint();
    direct = LocalS3.conf(endpoint.toString());
    runRoot =
        "s3a://"
            + LocalS3.bucket()
            + "/staging-test/"
            + System.currentTimeMillis()
            + "-"
            + UUID.randomUUID().toString().substring(0, 8);
    proxy = new FaultProxy(endpoint.getHost(), endpoint.getPort());
  }

  @AfterAll
  void cleanUp() throws IOException {
    if (proxy != null) {
      proxy.close();
    }
    if (runRoot != null) {
      try (HadoopStorage s = new HadoopStorage(runRoot, direct)) {
        s.fileSystem().delete(s.root(), true);
      }
    }
  }

  @BeforeEach
  void freshCache() throws IOException {
    proxy.up();
    cache = dir.resolve("cache");
  }

  @AfterEach
  void restoreProxy() throws IOException {
    if (proxy == null) {
      return; // skipped: no server
    }
    proxy.cutAfter(Long.MAX_VALUE, 0);
    proxy.up();
  }

  /** A fresh dataset of about {@code bytes} in files of about {@code fileBytes} on the server. */
  private String newDataset(long bytes, long fileBytes, Manifest[] out) throws IOException {
    String uri = runRoot + "/ds" + counter.incrementAndGet();
    try (HadoopStorage s = new HadoopStorage(uri, direct)) {
      out[0] = TestDatasets.write(s, bytes, fileBytes, counter.get());
    }
    return uri;
  }

  private HadoopStorage throughProxy(String uri) throws IOException {
    return new HadoopStorage(uri, LocalS3.conf(proxy.endpoint()));
  }

  private static long total(Manifest m) {
    return m.files().stream().mapToLong(Manifest.DataFile::byteLength).sum();
  }

  @Test
  void serverStoppedMidTransferAndRestartedIsRetriedThenCompletes() throws Exception {
    Manifest[] m = new Manifest[1];
    String uri = newDataset(4_000_000, 1_000_000, m);
    // Down for 1.5 s after 1.5 MB of responses: every connection resets, new ones are refused.
    long cutsBefore = proxy.cuts.get();
    proxy.cutAfter(1_500_000, 1500);
    StageReport r;
    try (HadoopStorage s = throughProxy(uri)) {
      r = new SnapshotStager(cache, OPTIONS).stage(s, 1);
    }
    assertThat(proxy.cuts.get()).isEqualTo(cutsBefore + 1);
    assertThat(r.retries()).isPositive();
    assertThat(r.filesDownloaded()).isEqualTo(m[0].files().size());
    assertThat(r.bytesDownloaded()).isEqualTo(total(m[0]));
    CacheChecks.assertNothingCorrupt(cache);
    try (BufferAllocator a = new RootAllocator()) {
      assertThat(DatasetValidator.validate(new LocalStorage(r.view()), 1, true, a, null).problems())
          .isEmpty();
    }
  }

  @Test
  void serverThatStaysDownIsAClearErrorAndNothingIsCached() throws Exception {
    Manifest[] m = new Manifest[1];
    String uri = newDataset(2_000_000, 1_000_000, m);
    proxy.cutAfter(600_000, 600_000);
    // The retry policy a user gets (8 attempts, at most 15 s of retrying per part): a clear error
    // naming the endpoint, not minutes of silence.
    StageOptions defaults = StageOptions.defaults().withPartBytes(256 << 10).withThreads(4);
    List<String> notes = java.util.Collections.synchronizedList(new ArrayList<>());
    StageListener listener =
        new StageListener() {
          @Override
          public void note(String line) {
            notes.add(line);
          }
        };
    try (HadoopStorage s = throughProxy(uri)) {
      assertThatThrownBy(() -> new SnapshotStager(cache, defaults).stage(s, 1, listener))
          .isInstanceOf(IOException.class)
          .hasMessageContaining(uri)
          .hasMessageContaining("gave up after")
          .hasMessageContaining("endpoint " + proxy.endpoint());
    }
    assertThat(notes).isNotEmpty().allMatch(n -> n.startsWith("retrying "));
    assertThat(SnapshotStager.completeView(cache, m[0].datasetId(), 1)).isEmpty();
    CacheChecks.assertNothingCorrupt(cache);
  }

  @Test
  void truncatedObjectIsAClearError() throws Exception {
    Manifest[] m = new Manifest[1];
    String uri = newDataset(2_000_000, 700_000, m);
    Manifest.DataFile bad = m[0].files().get(1);
    try (HadoopStorage s = new HadoopStorage(uri, direct)) {
      byte[] bytes = s.readAll(bad.path());
      try (OutputStream out = s.create(bad.path())) {
        out.write(bytes, 0, bytes.length - 1000);
      }
      assertThatThrownBy(() -> new SnapshotStager(cache, OPTIONS).stage(s, 1))
          .isInstanceOf(CorruptFileException.class)
          .hasMessageContaining(uri + "/" + bad.path())
          .hasMessageContaining("(truncated)");
    }
    assertThat(CacheChecks.blobNames(cache)).doesNotContain(bad.sha256());
    assertThat(SnapshotStager.completeView(cache, m[0].datasetId(), 1)).isEmpty();
    CacheChecks.assertNothingCorrupt(cache);
  }

  @Test
  void flippedByteIsASha256ErrorAndNothingOfItIsCached() throws Exception {
    Manifest[] m = new Manifest[1];
    String uri = newDataset(2_000_000, 700_000, m);
    Manifest.DataFile bad = m[0].files().get(0);
    try (HadoopStorage s = new HadoopStorage(uri, direct)) {
      byte[] bytes = s.readAll(bad.path());
      bytes[bytes.length / 3] ^= 0x10;
      try (OutputStream out = s.create(bad.path())) {
        out.write(bytes);
      }
      assertThatThrownBy(() -> new SnapshotStager(cache, OPTIONS).stage(s, 1))
          .isInstanceOf(CorruptFileException.class)
          .hasMessageContaining(uri + "/" + bad.path())
          .hasMessageContaining("SHA-256")
          .hasMessageContaining("nothing was cached");
    }
    assertThat(CacheChecks.blobNames(cache)).doesNotContain(bad.sha256());
    assertThat(SnapshotStager.completeView(cache, m[0].datasetId(), 1)).isEmpty();
    CacheChecks.assertNothingCorrupt(cache);
  }

  @Test
  void manifestNamingAMissingObjectIsAClearError() throws Exception {
    Manifest[] m = new Manifest[1];
    String uri = newDataset(2_000_000, 700_000, m);
    Manifest.DataFile gone = m[0].files().get(m[0].files().size() - 1);
    try (HadoopStorage s = new HadoopStorage(uri, direct)) {
      s.delete(gone.path());
      assertThatThrownBy(() -> new SnapshotStager(cache, OPTIONS).stage(s, 1))
          .isInstanceOf(NoSuchFileException.class)
          .hasMessageContaining(uri + "/" + gone.path())
          .hasMessageContaining("missing");
    }
    assertThat(SnapshotStager.completeView(cache, m[0].datasetId(), 1)).isEmpty();
    CacheChecks.assertNothingCorrupt(cache);
  }

  @Test
  void twoProcessesRacingForOneSnapshotDownloadEachBlobOnce() throws Exception {
    Manifest[] m = new Manifest[1];
    String uri = newDataset(2_000_000, 400_000, m);
    MultiProcessStageTest.raceTwoProcesses(dir, uri, cache, m[0], endpoint.toString());
  }

  /**
   * A real ENOSPC: the cache on a 2 MiB tmpfs (needs root and mount; skipped otherwise). Two
   * stagers with separate free-space bookkeeping both pass the up-front check, then the disk fills
   * under them; whichever fails must say why and leave nothing behind.
   */
  @Test
  void cacheDiskFullIsAClearErrorAndNothingCorruptIsLeft() throws Exception {
    Path mnt = dir.resolve("tmpfs");
    Files.createDirectories(mnt);
    Process mount =
        new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", mnt.toString())
            .redirectErrorStream(true)
            .start();
    boolean mounted = mount.waitFor(10, TimeUnit.SECONDS) && mount.exitValue() == 0;
    Assumptions.assumeTrue(mounted, "cannot mount a tmpfs here (needs root): disk-full skipped");
    try {
      Manifest[] a = new Manifest[1];
      Manifest[] b = new Manifest[1];
      String uriA = newDataset(1_300_000, 4 << 20, a);
      String uriB = newDataset(1_300_000, 4 << 20, b);
      Path small = mnt.resolve("cache");
      List<Throwable> errors = new ArrayList<>();
      ExecutorService pool = Executors.newFixedThreadPool(2);
      try (FaultyStorage sa = new FaultyStorage(new HadoopStorage(uriA, direct));
          FaultyStorage sb = new FaultyStorage(new HadoopStorage(uriB, direct))) {
        sa.delayMillis = 20;
        sb.delayMillis = 20;
        StageOptions opts = OPTIONS.withPartBytes(64 << 10);
        Future<StageReport> fa = pool.submit(() -> new SnapshotStager(small, opts).stage(sa, 1));
        Future<StageReport> fb = pool.submit(() -> new SnapshotStager(small, opts).stage(sb, 1));
        for (Future<StageReport> f : List.of(fa, fb)) {
          try {
            f.get();
          } catch (java.util.concurrent.ExecutionException e) {
            errors.add(e.getCause());
          }
        }
      } finally {
        pool.shutdownNow();
      }
      assertThat(errors).as("one of two 1.3 MB snapshots cannot fit in 2 MiB").isNotEmpty();
      for (Throwable e : errors) {
        assertThat(e)
            .isInstanceOf(IOException.class)
            .message()
            .containsAnyOf("cache disk full", "No space left on device");
      }
      CacheChecks.assertNothingCorrupt(small);
    } finally {
      new ProcessBuilder("umount", mnt.toString()).start().waitFor(10, TimeUnit.SECONDS);
    }
  }
}

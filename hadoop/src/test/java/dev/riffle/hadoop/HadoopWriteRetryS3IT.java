package dev.riffle.hadoop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.Manifest;
import dev.riffle.dataset.storage.LocalStorage;
import dev.riffle.dataset.storage.Storage;
import dev.riffle.hadoop.testing.FaultProxy;
import dev.riffle.hadoop.testing.LocalS3;
import dev.riffle.hadoop.testing.TestDatasets;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.stream.LongStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.s3a.S3AFileSystem;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Writes to the local Ceph RGW through a {@link FaultProxy}, with the retry settings a user gets
 * (issue 21): data-file uploads survive dropped and reset connections and a 503 and land
 * byte-identical, with nothing stray left; a server that stays away fails the write cleanly within
 * the retry policy's bounds; and the conditional create of a manifest whose answer was lost is not
 * taken for another writer's. Skipped without the server unless {@code RIFFLE_S3_REQUIRED=1}.
 */
class HadoopWriteRetryS3IT {
  /** S3's smallest part: a 13 MB object is a three-part upload. */
  private static final String PART = "5M";

  @TempDir Path dir;
  private FaultProxy proxy;
  private Configuration direct;
  private String uri;

  @BeforeEach
  void start() throws IOException {
    URI server = LocalS3.endpoint();
    direct = LocalS3.conf(server.toString());
    proxy = new FaultProxy(server.getHost(), server.getPort());
    uri = "s3a://" + LocalS3.bucket() + "/i21/write-retry/" + UUID.randomUUID();
  }

  @AfterEach
  void stop() throws IOException {
    if (proxy == null) {
      return; // skipped: no server
    }
    proxy.close();
    try (HadoopStorage s = new HadoopStorage(uri, direct)) {
      s.fileSystem().delete(s.root(), true);
    }
  }

  /** A storage that talks to the server through the proxy, with the user's defaults. */
  private HadoopStorage viaProxy() throws IOException {
    Configuration c = LocalS3.conf(proxy.endpoint());
    c.set("fs.s3a.multipart.size", PART);
    return new HadoopStorage(uri, c);
  }

  private static byte[] random(int n, long seed) {
    byte[] b = new byte[n];
    new SplittableRandom(seed).nextBytes(b);
    return b;
  }

  /** Every object under the dataset root, and every multipart upload not completed or aborted. */
  private List<String> objectsAndUploads() throws IOException {
    List<String> all = new ArrayList<>();
    try (HadoopStorage s = new HadoopStorage(uri, direct)) {
      try {
        var it = s.fileSystem().listFiles(s.root(), true);
        while (it.hasNext()) {
          all.add(it.next().getPath().toString());
        }
      } catch (java.io.FileNotFoundException e) {
        // Nothing under the root at all.
      }
      String key = s.root().toUri().getPath().substring(1) + "/";
      for (var u : ((S3AFileSystem) s.fileSystem()).listMultipartUploads(key)) {
        all.add("upload " + u.key() + " " + u.uploadId());
      }
    }
    return all;
  }

  @Test
  void dataFileUploadSurvivesDroppedAndResetConnections() throws Exception {
    byte[] data = random(13 << 20, 21);
    try (HadoopStorage s = viaProxy()) {
      // The first two connections die as they open; the first part gets 503 SlowDown; a later
      // connection dies mid-part, 3 MB in.
      proxy.dropNext(2);
      proxy.slowDownNextPut();
      proxy.resetUploadAfter(3 << 20);
      try (OutputStream out = s.create("data/f.rfl")) {
        for (int off = 0; off < data.length; off += 1 << 20) {
          out.write(data, off, Math.min(1 << 20, data.length - off));
        }
      }
    }
    assertThat(proxy.faults.get()).isEqualTo(4);
    try (HadoopStorage s = new HadoopStorage(uri, direct)) {
      assertThat(s.readAll("data/f.rfl")).isEqualTo(data);
    }
    assertThat(objectsAndUploads()).containsExactly(uri + "/data/f.rfl");
  }

  @Test
  void datasetWrittenThroughFaultsReadsBackByteIdentical() throws Exception {
    Manifest written;
    try (HadoopStorage s = viaProxy()) {
      proxy.dropNext(1);
      proxy.resetUploadAfter(3 << 20);
      written = TestDatasets.write(s, 12 << 20, 6 << 20, 7);
    }
    assertThat(proxy.faults.get()).isEqualTo(2);
    assertThat(written.files()).hasSizeGreaterThan(1);
    LocalStorage local = new LocalStorage(dir.resolve("local"));
    TestDatasets.write(local, 12 << 20, 6 << 20, 7);
    try (HadoopStorage s = new HadoopStorage(uri, direct)) {
      // Each object holds exactly the bytes the writer hashed...
      for (Manifest.DataFile f : written.files()) {
        byte[] sha = MessageDigest.getInstance("SHA-256").digest(s.readAll(f.path()));
        assertThat(HexFormat.of().formatHex(sha)).as(f.path()).isEqualTo(f.sha256());
      }
      // ...which are the rows of the same dataset written locally.
      assertSameRows(s, local);
    }
    List<String> expected = new ArrayList<>();
    written.files().forEach(f -> expected.add(uri + "/" + f.path()));
    expected.add(uri + "/" + Manifest.path(1));
    assertThat(objectsAndUploads()).containsExactlyInAnyOrderElementsOf(expected);
  }

  private static void assertSameRows(Storage a, Storage b) throws IOException {
    try (BufferAllocator alloc = new RootAllocator();
        Dataset da = Dataset.open(a, alloc);
        Dataset db = Dataset.open(b, alloc)) {
      assertThat(da.totalRows()).isEqualTo(db.totalRows());
      long[] rows = LongStream.range(0, da.totalRows()).toArray();
      try (VectorSchemaRoot ra = da.take(rows, null);
          VectorSchemaRoot rb = db.take(rows, null)) {
        BigIntVector ia = (BigIntVector) ra.getVector("id");
        BigIntVector ib = (BigIntVector) rb.getVector("id");
        VarBinaryVector pa = (VarBinaryVector) ra.getVector("payload");
        VarBinaryVector pb = (VarBinaryVector) rb.getVector("payload");
        for (int i = 0; i < rows.length; i++) {
          assertThat(ia.get(i)).isEqualTo(ib.get(i));
          assertThat(Arrays.equals(pa.get(i), pb.get(i))).as("payload of row %d", i).isTrue();
        }
      }
    }
  }

  @Test
  void serverThatStaysAwayFailsTheWriteCleanlyWithinThePolicy() throws Exception {
    byte[] data = random(6 << 20, 22);
    long before;
    try (HadoopStorage s = viaProxy()) {
      // Opened while the server is there (the create's probes pass); then every connection dies.
      OutputStream out = s.create("data/g.rfl");
      out.write(data, 0, 1 << 20);
      proxy.dropNext(Integer.MAX_VALUE);
      proxy.resetAll();
      before = proxy.connections.get();
      long t0 = System.nanoTime();
      Throwable e =
          org.assertj.core.api.Assertions.catchThrowable(
              () -> {
                out.write(data, 1 << 20, data.length - (1 << 20));
                out.close();
              });
      assertThat(e)
          .isInstanceOf(IOException.class)
          .hasMessageStartingWith("writing " + uri + "/data/g.rfl: gave up after")
          .hasMessageContaining("connection reset")
          .hasMessageEndingWith("; endpoint " + proxy.endpoint());
      double seconds = (System.nanoTime() - t0) / 1e9;
      // A guard against hangs and unbounded loops, well above the 15 s retry window.
      assertThat(seconds).isLessThan(120);
    }
    // Retried, and boundedly: the upload's first request (initiate) up to the policy's 8 attempts,
    // and a few more requests (the abort) at most as many times.
    long attempts = proxy.connections.get() - before;
    assertThat(attempts).isBetween(2L, 3L * 8);
    proxy.dropNext(0);
    assertThat(objectsAndUploads()).isEmpty();
  }

  /** The listener's calls as the CLI prints them. */
  private static List<String> listen(HadoopStorage s) {
    List<String> lines = new java.util.concurrent.CopyOnWriteArrayList<>();
    s.retryListener(
        (what, attempt, max, cause) ->
            lines.add("retrying " + what + " (" + attempt + "/" + max + "): " + cause));
    return lines;
  }

  @Test
  void uploadRetriesAreToldToTheListenerLikeReads() throws Exception {
    byte[] data = random(13 << 20, 25);
    List<String> lines;
    try (HadoopStorage s = viaProxy()) {
      lines = listen(s);
      // The first part gets 503 SlowDown; a later part's connection dies 3 MB in.
      proxy.slowDownNextPut();
      proxy.resetUploadAfter(3 << 20);
      try (OutputStream out = s.create("data/h.rfl")) {
        out.write(data);
      }
    }
    assertThat(proxy.faults.get()).isEqualTo(2);
    // One line per retry, naming the object, the part and the cause.
    assertThat(lines).hasSize(2);
    assertThat(lines)
        .allMatch(
            l ->
                l.matches(
                    "retrying upload of \\Q" + uri + "/data/h.rfl\\E part [1-3] \\([12]/8\\): .+"),
            "retrying upload of KEY part N (k/8): cause");
    assertThat(lines).anyMatch(l -> l.contains("connection reset"));
    try (HadoopStorage s = new HadoopStorage(uri, direct)) {
      assertThat(s.readAll("data/h.rfl")).isEqualTo(data);
    }
    assertThat(objectsAndUploads()).containsExactly(uri + "/data/h.rfl");
  }

  @Test
  void theCommandDeadlineBoundsUploads() throws Exception {
    byte[] data = random(6 << 20, 26);
    try (HadoopStorage s = viaProxy()) {
      List<String> lines = listen(s);
      OutputStream out = s.create("data/d.rfl");
      out.write(data, 0, 1 << 20);
      // From here on the server is gone, and the command has 3 s left (well inside the 15 s of
      // retries per request that the write would otherwise get).
      s.retryPolicy(s.retryPolicy().withDeadline(3));
      proxy.dropNext(Integer.MAX_VALUE);
      proxy.resetAll();
      Throwable e =
          org.assertj.core.api.Assertions.catchThrowable(
              () -> {
                out.write(data, 1 << 20, data.length - (1 << 20));
                out.close();
              });
      assertThat(e)
          .isInstanceOf(java.io.InterruptedIOException.class)
          .hasMessageStartingWith(
              "writing " + uri + "/data/d.rfl: the command's deadline passed (--deadline")
          .hasMessageEndingWith("; endpoint " + proxy.endpoint());
      // Retried (and told) until the deadline: the upload's start, the only request made.
      assertThat(lines)
          .isNotEmpty()
          .allMatch(l -> l.startsWith("retrying start of the upload of " + uri + "/data/d.rfl ("));
      long after = proxy.connections.get();
      Thread.sleep(2000);
      // Nothing retries on in the background once the write has failed.
      assertThat(proxy.connections.get()).isEqualTo(after);
    }
    proxy.dropNext(0);
    assertThat(objectsAndUploads()).isEmpty();
  }

  @Test
  void lostAnswerToTheConditionalCreateIsNotAConflict() throws Exception {
    byte[] manifest = random(10_000, 23);
    try (HadoopStorage s = viaProxy()) {
      proxy.loseNextPutResponse();
      s.createIfAbsent("_manifests/00000000000000000001.json", manifest);
      assertThat(proxy.faults.get()).isEqualTo(1);
      // Still conditional: another writer's content is refused.
      assertThatThrownBy(
              () -> s.createIfAbsent("_manifests/00000000000000000001.json", random(10, 24)))
          .isInstanceOf(FileAlreadyExistsException.class);
    }
    try (HadoopStorage s = new HadoopStorage(uri, direct)) {
      assertThat(s.readAll("_manifests/00000000000000000001.json")).isEqualTo(manifest);
    }
  }
}

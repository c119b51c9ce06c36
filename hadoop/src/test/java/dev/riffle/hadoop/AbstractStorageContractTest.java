package dev.riffle.hadoop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.riffle.dataset.storage.Storage;
import dev.riffle.format.io.RandomAccessSource;
import java.io.EOFException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The {@link Storage} contract, run against every implementation: {@code LocalStorage}, and {@link
 * HadoopStorage} on {@code file:} and on {@code s3a:} (the local Ceph RGW).
 */
abstract class AbstractStorageContractTest {
  protected Storage storage;

  /** A fresh, empty storage for one test. */
  protected abstract Storage newStorage() throws Exception;

  @BeforeEach
  void openStorage() throws Exception {
    storage = newStorage();
  }

  @AfterEach
  void closeStorage() throws Exception {
    if (storage != null) {
      storage.close();
    }
  }

  static byte[] randomBytes(long seed, int n) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return b;
  }

  void write(String path, byte[] content) throws Exception {
    try (OutputStream out = storage.create(path)) {
      out.write(content);
    }
  }

  /**
   * Leases are rewritten with replace, and gc reads their age and data files' from lastModified.
   */
  @Test
  void replaceWritesWholeObjectsAndLastModifiedIsTheWriteTime() throws Exception {
    // The store's clock may differ from this one a little (S3); the grace periods are far longer.
    java.time.Instant before = java.time.Instant.now().minusSeconds(120);
    storage.replace("ds/_leases/a.lease", "one".getBytes(StandardCharsets.UTF_8));
    assertThat(storage.readAll("ds/_leases/a.lease")).asString().isEqualTo("one");
    storage.replace("ds/_leases/a.lease", "two, longer".getBytes(StandardCharsets.UTF_8));
    assertThat(storage.readAll("ds/_leases/a.lease")).asString().isEqualTo("two, longer");
    assertThat(storage.list("ds/_leases")).as("no temporary file left").containsExactly("a.lease");
    assertThat(storage.lastModified("ds/_leases/a.lease"))
        .isBetween(before, java.time.Instant.now().plusSeconds(120));
    write("ds/data/x.riffle", new byte[] {1});
    assertThat(storage.lastModified("ds/data/x.riffle"))
        .isBetween(before, java.time.Instant.now().plusSeconds(120));
    assertThatThrownBy(() -> storage.lastModified("ds/data/nope.riffle"))
        .isInstanceOf(NoSuchFileException.class);
  }

  @Test
  void createReadListDeleteRoundTrip() throws Exception {
    byte[] data = randomBytes(1, 100_000);
    write("ds/data/part-0.bin", data);
    write("ds/data/b.bin", new byte[] {1, 2, 3});
    write("ds/data/a.bin", new byte[] {4});
    write("ds/data/sub/nested.bin", new byte[] {5});
    write("ds/top.json", "{}".getBytes(StandardCharsets.UTF_8));

    assertThat(storage.exists("ds/data/part-0.bin")).isTrue();
    assertThat(storage.length("ds/data/part-0.bin")).isEqualTo(data.length);
    assertThat(storage.readAll("ds/data/part-0.bin")).isEqualTo(data);
    assertThat(storage.list("ds/data")).containsExactly("a.bin", "b.bin", "part-0.bin");
    assertThat(storage.list("ds/data/")).containsExactly("a.bin", "b.bin", "part-0.bin");
    assertThat(storage.list("ds")).containsExactly("top.json");
    assertThat(storage.list("ds/nope")).isEmpty();
    assertThat(storage.list("ds/top.json")).as("a file has no children").isEmpty();

    // create replaces
    write("ds/data/b.bin", new byte[] {9, 9});
    assertThat(storage.readAll("ds/data/b.bin")).containsExactly(9, 9);

    storage.delete("ds/data/part-0.bin");
    assertThat(storage.exists("ds/data/part-0.bin")).isFalse();
    assertThat(storage.list("ds/data")).containsExactly("a.bin", "b.bin");
    storage.delete("ds/data/part-0.bin"); // already gone: no error

    for (String p : List.of("ds/data/a.bin", "ds/data/b.bin", "ds/data/sub/nested.bin")) {
      storage.delete(p);
    }
    assertThat(storage.list("ds/data")).isEmpty();
    assertThat(storage.list("ds")).containsExactly("top.json");
  }

  @Test
  void positionalReadsAtRandomOffsets() throws Exception {
    int n = 1 << 20;
    byte[] data = randomBytes(2, n);
    write("obj.bin", data);
    Random r = new Random(3);
    try (RandomAccessSource src = storage.open("obj.bin")) {
      assertThat(src.length()).isEqualTo(n);
      assertThat(src.name()).contains("obj.bin");
      for (int i = 0; i < 60; i++) {
        int len = r.nextInt(i % 10 == 0 ? 200_000 : 5_000) + 1;
        int off = r.nextInt(n - len + 1);
        checkRead(src, data, off, len, i % 3);
      }
      checkRead(src, data, n - 1, 1, 0); // last byte
      checkRead(src, data, 0, n, 1); // everything, into a direct buffer
      src.readFully(n, ByteBuffer.allocate(0)); // empty read at the end
      assertThatThrownBy(() -> src.readFully(n - 10, ByteBuffer.allocate(11)))
          .isInstanceOf(EOFException.class);
      assertThatThrownBy(() -> src.readFully(n + 5, ByteBuffer.allocate(1)))
          .isInstanceOf(EOFException.class);
    }
  }

  /** kind 0: heap buffer; 1: direct buffer; 2: slice of a heap array at a non-zero position. */
  static void checkRead(RandomAccessSource src, byte[] data, int off, int len, int kind)
      throws Exception {
    ByteBuffer dst;
    if (kind == 0) {
      dst = ByteBuffer.allocate(len);
    } else if (kind == 1) {
      dst = ByteBuffer.allocateDirect(len);
    } else {
      dst = ByteBuffer.wrap(new byte[len + 20], 3, len + 10).slice();
      dst.position(7);
      dst.limit(7 + len);
    }
    int start = dst.position();
    src.readFully(off, dst);
    assertThat(dst.hasRemaining()).isFalse();
    byte[] got = new byte[len];
    dst.position(start);
    dst.get(got);
    byte[] want = new byte[len];
    System.arraycopy(data, off, want, 0, len);
    assertThat(got).as("%d bytes at %d", len, off).isEqualTo(want);
  }

  @Test
  void concurrentPositionalReadsOnOneSource() throws Exception {
    int n = 512 << 10;
    byte[] data = randomBytes(4, n);
    write("shared.bin", data);
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try (RandomAccessSource src = storage.open("shared.bin")) {
      List<Future<Integer>> results = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        long seed = 100 + t;
        results.add(
            pool.submit(
                () -> {
                  Random r = new Random(seed);
                  for (int i = 0; i < 40; i++) {
                    int len = r.nextInt(20_000) + 1;
                    int off = r.nextInt(n - len + 1);
                    checkRead(src, data, off, len, i % 2);
                  }
                  return 40;
                }));
      }
      for (Future<Integer> f : results) {
        assertThat(f.get(60, TimeUnit.SECONDS)).isEqualTo(40);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * {@code openAgain} opens the object it names, as {@code open} does: from a closed source of that
   * object, and from a source of another one (which it must not take the length of).
   */
  @Test
  void openAgainReadsTheObjectItNames() throws Exception {
    byte[] data = randomBytes(4, 300_000);
    byte[] other = randomBytes(5, 1_000);
    write("again/obj.bin", data);
    write("again/other.bin", other);
    RandomAccessSource first = storage.open("again/obj.bin");
    first.close();
    try (RandomAccessSource again = storage.openAgain("again/obj.bin", first);
        RandomAccessSource elsewhere = storage.open("again/other.bin");
        RandomAccessSource fromOther = storage.openAgain("again/obj.bin", elsewhere)) {
      for (RandomAccessSource src : List.of(again, fromOther)) {
        assertThat(src.length()).isEqualTo(data.length);
        assertThat(src.name()).contains("again/obj.bin");
        checkRead(src, data, 0, data.length, 0);
        checkRead(src, data, 123_456, 70_000, 2);
      }
      assertThatThrownBy(() -> storage.openAgain("again/none.bin", elsewhere))
          .isInstanceOf(NoSuchFileException.class)
          .hasMessageContaining("again/none.bin");
    }
  }

  @Test
  void missingObjects() throws Exception {
    assertThat(storage.exists("no/such.bin")).isFalse();
    assertThatThrownBy(() -> storage.open("no/such.bin"))
        .isInstanceOf(NoSuchFileException.class)
        .hasMessageContaining("no/such.bin");
    assertThatThrownBy(() -> storage.readAll("no/such.bin"))
        .isInstanceOf(NoSuchFileException.class)
        .hasMessageContaining("no/such.bin");
    assertThatThrownBy(() -> storage.length("no/such.bin"))
        .isInstanceOf(NoSuchFileException.class)
        .hasMessageContaining("no/such.bin");
    storage.delete("no/such.bin");
  }

  @Test
  void createIfAbsentTwice() throws Exception {
    byte[] first = "{\"version\":1}".getBytes(StandardCharsets.UTF_8);
    storage.createIfAbsent("_manifests/v1.json", first);
    assertThat(storage.readAll("_manifests/v1.json")).isEqualTo(first);
    assertThatThrownBy(
            () ->
                storage.createIfAbsent(
                    "_manifests/v1.json", "{\"other\":true}".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(FileAlreadyExistsException.class)
        .hasMessageContaining("_manifests/v1.json");
    assertThat(storage.readAll("_manifests/v1.json")).isEqualTo(first);
    assertThat(storage.list("_manifests")).containsExactly("v1.json");
  }

  @Test
  void createIfAbsentRaceHasExactlyOneWinner() throws Exception {
    int threads = 8;
    String path = "_manifests/v7.json";
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CountDownLatch ready = new CountDownLatch(threads);
    CountDownLatch go = new CountDownLatch(1);
    try {
      List<Future<Integer>> results = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int id = t;
        results.add(
            pool.submit(
                () -> {
                  byte[] content = ("{\"writer\":" + id + "}").getBytes(StandardCharsets.UTF_8);
                  ready.countDown();
                  go.await();
                  try {
                    storage.createIfAbsent(path, content);
                    return id;
                  } catch (FileAlreadyExistsException e) {
                    return -1;
                  }
                }));
      }
      ready.await();
      go.countDown();
      List<Integer> winners = new ArrayList<>();
      for (Future<Integer> f : results) {
        int r = f.get(60, TimeUnit.SECONDS);
        if (r >= 0) {
          winners.add(r);
        }
      }
      assertThat(winners).hasSize(1);
      assertThat(new String(storage.readAll(path), StandardCharsets.UTF_8))
          .isEqualTo("{\"writer\":" + winners.get(0) + "}");
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void zeroByteObjects() throws Exception {
    write("empty/a.bin", new byte[0]);
    assertThat(storage.exists("empty/a.bin")).isTrue();
    assertThat(storage.length("empty/a.bin")).isZero();
    assertThat(storage.readAll("empty/a.bin")).isEmpty();
    try (RandomAccessSource src = storage.open("empty/a.bin")) {
      assertThat(src.length()).isZero();
      src.readFully(0, ByteBuffer.allocate(0));
      assertThatThrownBy(() -> src.readFully(0, ByteBuffer.allocate(1)))
          .isInstanceOf(EOFException.class);
    }
    storage.createIfAbsent("empty/b.bin", new byte[0]);
    assertThat(storage.length("empty/b.bin")).isZero();
    assertThatThrownBy(() -> storage.createIfAbsent("empty/b.bin", new byte[0]))
        .isInstanceOf(FileAlreadyExistsException.class);
    assertThat(storage.list("empty")).containsExactly("a.bin", "b.bin");
    storage.delete("empty/a.bin");
    storage.delete("empty/b.bin");
    assertThat(storage.list("empty")).isEmpty();
  }
}

package dev.riffle.dataset.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.DatasetLayout;
import dev.riffle.dataset.DatasetValidator;
import dev.riffle.dataset.Manifest;
import dev.riffle.dataset.storage.LocalStorage;
import dev.riffle.dataset.storage.Storage;
import dev.riffle.format.io.ProcessIdentity;
import dev.riffle.format.testing.RandomData;
import dev.riffle.format.testing.Seed;
import dev.riffle.format.testing.SeedExtension;
import dev.riffle.format.testing.TypeCase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * gc against live writers, with real threads and real files (FORMAT.md §11.4): a writer's lease
 * keeps gc from deleting anything while it writes, a forced gc makes the writer refuse to publish
 * instead of publishing a version with missing files, a writer never publishes a file that is gone,
 * and gc never touches names that are not data file names.
 */
@ExtendWith(SeedExtension.class)
class GcRaceTest {
  static final Schema SCHEMA =
      new Schema(
          List.of(
              TypeCase.f("x", new ArrowType.Int(64, true)),
              TypeCase.f("s", ArrowType.Utf8.INSTANCE)));

  static final DatasetGc.Options NO_GRACE = DatasetGc.Options.defaults().withGrace(Duration.ZERO);

  @TempDir Path dir;
  BufferAllocator allocator;
  Storage storage;
  ExecutorService threads;

  @BeforeEach
  void setUp() throws IOException {
    allocator = new RootAllocator();
    storage = new LocalStorage(dir.resolve("ds"));
    threads = Executors.newCachedThreadPool();
    try (DatasetWriter w = DatasetWriter.create(storage, SCHEMA, null, DatasetOptions.defaults());
        VectorSchemaRoot rows = RandomData.generate(SCHEMA, 100, 1, 0.1, allocator)) {
      w.write(rows);
      w.publish();
    }
  }

  @AfterEach
  void tearDown() throws Exception {
    threads.shutdownNow();
    assertThat(threads.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
    storage.close();
    allocator.close();
  }

  /** A writer on another thread: writes its files, says so, waits for {@code go}, publishes. */
  private Future<Manifest> pausedWriter(CountDownLatch written, CountDownLatch go, long seed) {
    return threads.submit(
        () -> {
          try (DatasetWriter w =
              DatasetWriter.append(
                  storage, SCHEMA, null, DatasetOptions.defaults().withTargetFileRows(1500))) {
            for (int b = 0; b < 4; b++) {
              try (VectorSchemaRoot rows =
                  RandomData.generate(SCHEMA, 2000, seed + b, 0.1, allocator)) {
                w.write(rows);
              }
            }
            written.countDown();
            assertThat(go.await(60, TimeUnit.SECONDS)).isTrue();
            return w.publish();
          }
        });
  }

  private Set<String> dataFiles() throws IOException {
    return new HashSet<>(storage.list(DatasetLayout.DATA_DIR));
  }

  private void assertIntact(long version) throws IOException {
    DatasetValidator.Report r = DatasetValidator.validate(storage, version, true, allocator, null);
    assertThat(r.problems()).as("version " + version).isEmpty();
  }

  /** Progress: every manifest read is told (with the total) before any orphan is handled. */
  @Test
  void manifestsReadAreToldBeforeOrphans() throws IOException {
    for (long seed = 2; seed <= 3; seed++) {
      try (DatasetWriter w =
              DatasetWriter.append(storage, SCHEMA, null, DatasetOptions.defaults());
          VectorSchemaRoot rows = RandomData.generate(SCHEMA, 10, seed, 0.1, allocator)) {
        w.write(rows);
        w.publish();
      }
    }
    List<String> heard = new java.util.ArrayList<>();
    DatasetGc.collect(
        storage,
        NO_GRACE,
        new DatasetGc.Listener() {
          @Override
          public void manifestsRead(long done, long total) {
            heard.add("manifest " + done + "/" + total);
          }

          @Override
          public void orphansDone(long done, long total) {
            heard.add("orphan " + done + "/" + total);
          }
        });
    assertThat(heard).containsExactly("manifest 1/3", "manifest 2/3", "manifest 3/3", "orphan 0/0");
  }

  @Test
  void gcWhileAWriterHoldsItsFilesDeletesNothingOfThem(@Seed long seed) throws Exception {
    CountDownLatch written = new CountDownLatch(1);
    CountDownLatch go = new CountDownLatch(1);
    Future<Manifest> writer = pausedWriter(written, go, seed);
    assertThat(written.await(60, TimeUnit.SECONDS)).isTrue();
    Set<String> before = dataFiles();
    assertThat(before).hasSizeGreaterThan(2);

    List<WriterLease.Status> leases = WriterLease.list(storage, Instant.now());
    assertThat(leases).singleElement().satisfies(l -> assertThat(l.stale()).isFalse());
    WriterLease.Status lease = leases.get(0);
    assertThat(lease.content().pid()).isEqualTo(ProcessHandle.current().pid());
    // The lease names every file the writer has written, before they are published.
    List<String> unpublished =
        DatasetValidator.validate(storage, 1, false, allocator, null).orphans();
    assertThat(unpublished).hasSize(before.size() - 1);
    assertThat(lease.content().files()).containsExactlyInAnyOrderElementsOf(unpublished);

    for (DatasetGc.Options o :
        List.of(DatasetGc.Options.defaults(), NO_GRACE, NO_GRACE.withDryRun(true))) {
      assertThatThrownBy(() -> DatasetGc.collect(storage, o))
          .isInstanceOf(DatasetBusyException.class)
          .hasMessageContaining(lease.path())
          .hasMessageContaining("pid " + ProcessHandle.current().pid())
          .hasMessageContaining("renewed ");
    }
    assertThat(dataFiles()).isEqualTo(before);

    go.countDown();
    Manifest m = writer.get(60, TimeUnit.SECONDS);
    assertThat(m.version()).isEqualTo(2);
    assertIntact(1);
    assertIntact(2);
    DatasetGc.Report r = DatasetGc.collect(storage, NO_GRACE);
    assertThat(r.deleted()).isEmpty();
    assertThat(r.leasesRemoved()).isEmpty();
    assertThat(storage.list(DatasetLayout.LEASES_DIR)).isEmpty();
    assertThat(dataFiles()).isEqualTo(before);
  }

  @Test
  void forcedGcMakesTheWriterPublishNothing(@Seed long seed) throws Exception {
    for (Duration grace : List.of(DatasetGc.DEFAULT_GRACE, Duration.ZERO)) {
      CountDownLatch written = new CountDownLatch(1);
      CountDownLatch go = new CountDownLatch(1);
      Future<Manifest> writer = pausedWriter(written, go, seed);
      assertThat(written.await(60, TimeUnit.SECONDS)).isTrue();
      List<String> unpublished =
          DatasetValidator.validate(storage, 1, false, allocator, null).orphans();
      List<String> told = new java.util.ArrayList<>();
      DatasetGc.Report r =
          DatasetGc.collect(
              storage,
              DatasetGc.Options.defaults().withGrace(grace).withForce(true),
              (done, total) -> told.add(done + "/" + total));
      assertThat(r.leasesRemoved()).hasSize(1);
      // Progress: each orphan before it is handled, then all of them.
      int n = unpublished.size();
      assertThat(told).hasSize(n + 1).startsWith("0/" + n).endsWith(n + "/" + n);
      // With the default grace the young files stay; with none they go.
      if (grace.isZero()) {
        assertThat(r.deleted()).containsExactlyInAnyOrderElementsOf(unpublished);
      } else {
        assertThat(r.deleted()).isEmpty();
        assertThat(r.kept())
            .extracting(DatasetGc.Kept::path)
            .containsExactlyInAnyOrderElementsOf(unpublished);
      }
      go.countDown();
      assertThatThrownBy(() -> writer.get(60, TimeUnit.SECONDS))
          .cause()
          .isInstanceOf(LeaseLostException.class)
          .hasMessageContaining("was removed")
          .hasMessageContaining("nothing was published");
      assertThat(Dataset.versions(storage)).containsExactly(1L);
      assertIntact(1);
      // The refusing writer deleted what was left of its files.
      assertThat(DatasetValidator.validate(storage, 1, false, allocator, null).orphans()).isEmpty();
    }
  }

  @Test
  void aWriterWhoseLeaseWasRemovedStopsAtItsNextFile(@Seed long seed) throws Exception {
    try (DatasetWriter w =
        DatasetWriter.append(
            storage, SCHEMA, null, DatasetOptions.defaults().withTargetFileRows(500))) {
      try (VectorSchemaRoot rows = RandomData.generate(SCHEMA, 1000, seed, 0.1, allocator)) {
        w.write(rows);
      }
      DatasetGc.Report r = DatasetGc.collect(storage, DatasetGc.Options.defaults().withForce(true));
      assertThat(r.leasesRemoved()).hasSize(1);
      try (VectorSchemaRoot rows = RandomData.generate(SCHEMA, 1000, seed + 1, 0.1, allocator)) {
        // A rewrite of the lease for the next file must not quietly re-create it.
        assertThatThrownBy(() -> w.write(rows))
            .isInstanceOf(LeaseLostException.class)
            .hasMessageContaining("was removed");
      }
    }
    assertThat(Dataset.versions(storage)).containsExactly(1L);
    assertThat(DatasetValidator.validate(storage, 1, false, allocator, null).orphans()).isEmpty();
    assertThat(storage.list(DatasetLayout.LEASES_DIR)).isEmpty();
  }

  @Test
  void aWriterNeverPublishesAFileThatIsGone(@Seed long seed) throws Exception {
    CountDownLatch written = new CountDownLatch(1);
    CountDownLatch go = new CountDownLatch(1);
    Future<Manifest> writer = pausedWriter(written, go, seed);
    assertThat(written.await(60, TimeUnit.SECONDS)).isTrue();
    List<String> unpublished =
        DatasetValidator.validate(storage, 1, false, allocator, null).orphans();
    String victim = unpublished.get(new SplittableRandom(seed).nextInt(unpublished.size()));
    storage.delete(victim); // by hand, or a gc of another tool
    go.countDown();
    assertThatThrownBy(() -> writer.get(60, TimeUnit.SECONDS))
        .cause()
        .isInstanceOf(IOException.class)
        .hasMessageContaining("not publishing version 2")
        .hasMessageContaining(victim + " is gone")
        .hasMessageContaining("nothing was published");
    assertThat(Dataset.versions(storage)).containsExactly(1L);
    assertThat(storage.list(DatasetLayout.LEASES_DIR)).isEmpty();
  }

  /**
   * Writers append in rounds while gc runs in a loop with no grace period at all: leases alone must
   * keep every writer's files. Every round publishes or loses a publish race cleanly, and every
   * published version is intact.
   */
  @Test
  void gcRacingWritersNeverBreaksAVersion(@Seed long seed) throws Exception {
    AtomicBoolean writing = new AtomicBoolean(true);
    AtomicInteger gcRuns = new AtomicInteger();
    AtomicInteger busy = new AtomicInteger();
    List<String> deletedByGc = java.util.Collections.synchronizedList(new ArrayList<>());
    // The writers start once gc has made a pass: however the threads are scheduled, gc is running
    // when they write, and the check that it ran does not depend on a thread start being prompt.
    CountDownLatch gcStarted = new CountDownLatch(1);
    Future<?> gc =
        threads.submit(
            () -> {
              while (writing.get()) {
                try {
                  deletedByGc.addAll(DatasetGc.collect(storage, NO_GRACE).deleted());
                  gcRuns.incrementAndGet();
                } catch (DatasetBusyException e) {
                  busy.incrementAndGet();
                } finally {
                  gcStarted.countDown();
                }
              }
              return null;
            });
    List<Future<List<Long>>> writers = new ArrayList<>();
    for (int t = 0; t < 2; t++) {
      long s = seed + 1000L * t;
      writers.add(
          threads.submit(
              () -> {
                assertThat(gcStarted.await(60, TimeUnit.SECONDS)).as("gc's first pass").isTrue();
                SplittableRandom r = new SplittableRandom(s);
                List<Long> published = new ArrayList<>();
                for (int round = 0; round < 6; round++) {
                  try (DatasetWriter w =
                      DatasetWriter.append(
                          storage,
                          SCHEMA,
                          null,
                          DatasetOptions.defaults().withTargetFileRows(300 + r.nextInt(1000)))) {
                    int batches = 1 + r.nextInt(4);
                    for (int b = 0; b < batches; b++) {
                      try (VectorSchemaRoot rows =
                          RandomData.generate(
                              SCHEMA, 500 + r.nextInt(1500), s + round, 0.1, allocator)) {
                        w.write(rows);
                      }
                      Thread.sleep(r.nextInt(20));
                    }
                    published.add(w.publish().version());
                  } catch (ConcurrentPublishException e) {
                    // Lost the race for the version to the other writer: clean, nothing published.
                  }
                  Thread.sleep(r.nextInt(20));
                }
                return published;
              }));
    }
    Set<Long> published = new HashSet<>();
    for (Future<List<Long>> w : writers) {
      published.addAll(w.get(120, TimeUnit.SECONDS));
    }
    writing.set(false);
    gc.get(60, TimeUnit.SECONDS);

    assertThat(published).isNotEmpty();
    for (long v : Dataset.versions(storage)) {
      assertIntact(v);
    }
    // Whatever gc deleted belonged to no published version.
    Set<String> referenced = new HashSet<>();
    for (long v : Dataset.versions(storage)) {
      Dataset.readManifest(storage, v).files().forEach(f -> referenced.add(f.path()));
    }
    assertThat(deletedByGc).doesNotContainAnyElementsOf(referenced);
    DatasetGc.Report last = DatasetGc.collect(storage, NO_GRACE);
    assertThat(last.deleted()).isEmpty();
    assertThat(storage.list(DatasetLayout.LEASES_DIR)).isEmpty();
    assertThat(gcRuns.get() + busy.get()).isPositive();
  }

  @Test
  void gcTouchesOnlyDataFileNames() throws Exception {
    Path data = dir.resolve("ds").resolve(DatasetLayout.DATA_DIR);
    List<String> foreign = List.of("README.txt", ".hidden", "notes", "-x.riffle", ".y.riffle");
    for (String name : foreign) {
      Files.writeString(data.resolve(name), "not Riffle's");
    }
    String orphan = "0123456789abcdef01234567.riffle";
    Files.writeString(data.resolve(orphan), "an orphan");
    FileTime old = FileTime.from(Instant.now().minus(Duration.ofDays(2)));
    for (String name : storage.list(DatasetLayout.DATA_DIR)) {
      Files.setLastModifiedTime(data.resolve(name), old);
    }
    assertThat(DatasetValidator.validate(storage, 1, false, allocator, null).orphans())
        .containsExactly("data/" + orphan);
    DatasetGc.Report r = DatasetGc.collect(storage, DatasetGc.Options.defaults());
    assertThat(r.deleted()).containsExactly("data/" + orphan);
    for (String name : foreign) {
      assertThat(data.resolve(name)).exists();
    }
    assertIntact(1);
  }

  @Test
  void leasesOfGoneOrSilentWritersAreRemovedAndTheirFilesCollected() throws Exception {
    Path root = dir.resolve("ds");
    Files.createDirectories(root.resolve(DatasetLayout.LEASES_DIR));
    // A writer of this host that is gone: a process that has exited.
    Process p = new ProcessBuilder("true").start();
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    ProcessIdentity me = ProcessIdentity.current();
    String goneFile = "data/aaaaaaaaaaaaaaaaaaaaaaaa.riffle";
    writeLease(root, "gone", me.host(), me.machine(), p.pid(), List.of(goneFile));
    Files.writeString(root.resolve(goneFile), "partial");
    // A gone job driver's lease protects its tasks' files by name prefix: they go at once too.
    String taskFile = "data/job7-cccccccccccccccccccccccc.riffle";
    WriterLease.Content driver =
        new WriterLease.Content(
            1,
            "driver",
            "spark",
            me.host(),
            me.machine(),
            p.pid(),
            null,
            "x",
            "x",
            List.of(),
            List.of("job7-"));
    Files.write(
        root.resolve(DatasetLayout.LEASES_DIR).resolve("driver.lease"),
        new ObjectMapper().writeValueAsBytes(driver));
    Files.writeString(root.resolve(taskFile), "a task's file");
    // A writer of another host, silent for longer than STALE_AFTER.
    String silentFile = "data/bbbbbbbbbbbbbbbbbbbbbbbb.riffle";
    Path silent = writeLease(root, "silent", "elsewhere", "other-boot", 42, List.of(silentFile));
    Files.writeString(root.resolve(silentFile), "partial");
    Files.setLastModifiedTime(
        silent,
        FileTime.from(Instant.now().minus(WriterLease.STALE_AFTER).minus(Duration.ofMinutes(1))));

    DatasetGc.Report r = DatasetGc.collect(storage, DatasetGc.Options.defaults());
    // The gone writer's file goes at once; the silent one's only after the grace period.
    assertThat(r.deleted()).containsExactlyInAnyOrder(goneFile, taskFile);
    assertThat(r.kept()).extracting(DatasetGc.Kept::path).containsExactly(silentFile);
    assertThat(r.leasesRemoved())
        .extracting(WriterLease.Status::path)
        .containsExactlyInAnyOrder(
            "_leases/gone.lease", "_leases/silent.lease", "_leases/driver.lease");
    assertThat(r.leasesRemoved())
        .filteredOn(l -> l.path().endsWith("gone.lease"))
        .singleElement()
        .satisfies(l -> assertThat(l.describe()).contains("its process is gone"));
    assertThat(storage.list(DatasetLayout.LEASES_DIR)).isEmpty();
    assertThat(DatasetGc.collect(storage, NO_GRACE).deleted()).containsExactly(silentFile);

    // A fresh lease of another host blocks gc: its process cannot be checked from here.
    writeLease(root, "busy", "elsewhere", "other-boot", 42, List.of());
    assertThatThrownBy(() -> DatasetGc.collect(storage, NO_GRACE))
        .isInstanceOf(DatasetBusyException.class)
        .hasMessageContaining("_leases/busy.lease (test, host elsewhere, pid 42, renewed ");
  }

  private static Path writeLease(
      Path root, String id, String host, String machine, long pid, List<String> files)
      throws IOException {
    String now = Instant.now().toString();
    WriterLease.Content c =
        new WriterLease.Content(1, id, "test", host, machine, pid, null, now, now, files, null);
    Path p = root.resolve(DatasetLayout.LEASES_DIR).resolve(id + DatasetLayout.LEASE_SUFFIX);
    Files.write(p, new ObjectMapper().writeValueAsBytes(c));
    return p;
  }
}

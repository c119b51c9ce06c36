package dev.riffle.loader.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.storage.LocalStorage;
import dev.riffle.loader.plan.BlockShuffle;
import java.io.IOException;
import java.nio.file.Path;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The prefetch budget bounds what the loader holds: a budget below one fetch is refused with the
 * smallest that works, and one below two fetches holds one at a time (issue #15 item 9: it used to
 * admit a fetch whenever none was queued, so it held two, whatever the budget).
 */
class LoaderBudgetTest {
  static final int FETCH = 16;
  static final int BATCH = 64;

  @TempDir Path dir;
  BufferAllocator allocator;
  LocalStorage storage;

  @BeforeEach
  void setUp() throws IOException {
    allocator = new RootAllocator();
    storage = TestDatasets.write(dir, 20_000, 64 << 10, allocator);
  }

  @AfterEach
  void tearDown() {
    allocator.close();
  }

  private static LoaderOptions options(long budget) {
    return LoaderOptions.of(new BlockShuffle(16, FETCH, 0, false), BATCH, 1)
        .withThreads(2, 2)
        .withPrefetchBytes(budget);
  }

  /** One fetch as the loader plans it: f batches of m rows at its estimate of a row's bytes. */
  private static long fetchBytes(Dataset d) throws IOException {
    return (long) FETCH * BATCH * RowBytes.estimate(d.all(), null, 32);
  }

  /** Runs an epoch; returns the loader's peak, checking the allocator's against it. */
  private static long run(Dataset d, BufferAllocator measured, long budget) throws IOException {
    long before = measured.getAllocatedMemory();
    long peak;
    try (Loader loader = Loader.open(d.all(), options(budget), measured)) {
      for (VectorSchemaRoot b = loader.next(); b != null; b = loader.next()) {
        b.close();
      }
      peak = loader.peakHeldBytes();
    }
    assertThat(measured.getAllocatedMemory()).isEqualTo(before);
    return peak;
  }

  @Test
  void aBudgetBelowOneFetchIsRefusedNamingTheSmallestThatWorks() throws IOException {
    try (Dataset d = Dataset.open(storage, allocator)) {
      long fetch = fetchBytes(d);
      assertThatThrownBy(() -> Loader.open(d.all(), options(fetch - 1), allocator))
          .isInstanceOf(BudgetTooSmallException.class)
          .hasMessageContaining("cannot hold one fetch")
          .hasMessageContaining("it needs " + dev.riffle.format.io.Numbers.count(fetch) + " bytes")
          .satisfies(
              e -> assertThat(((BudgetTooSmallException) e).minimumBytes()).isEqualTo(fetch));
      // The smallest budget that works, works.
      assertThat(run(d, allocator, fetch)).isPositive();
    }
  }

  @Test
  void aBudgetBelowTwoFetchesHoldsOneAtATime() throws IOException {
    // A fresh allocator for the dataset and the loader: the takes allocate in the dataset's, the
    // batches in the loader's.
    try (BufferAllocator measured = new RootAllocator();
        Dataset d = Dataset.open(storage, measured)) {
      long fetch = fetchBytes(d);
      long[] firstOfEachFile = d.manifest().files().stream().mapToLong(f -> f.firstRow()).toArray();
      try (VectorSchemaRoot warm = d.take(firstOfEachFile, null)) {
        // Every file's metadata open: the dataset's, whatever the loader does.
        assertThat(warm.getRowCount()).isEqualTo(firstOfEachFile.length);
      }
      long baseline = measured.getAllocatedMemory();

      long tight = fetch * 3 / 2;
      long held = run(d, measured, tight);
      long allocated = measured.getPeakMemoryAllocation() - baseline;
      assertThat(held)
          .as("held at a budget of 1.5 fetches (%d)", fetch)
          .isBetween(fetch / 2, tight);
      // The Arrow buffers really allocated: one fetch, the batch being cut from it, and a chunk
      // that a take of the next fetch may have grown before the last one was freed.
      assertThat(allocated).as("allocated at a budget of 1.5 fetches").isLessThan(tight);

      // With room for three, the loader reads ahead: the budget, not the code, was the limit.
      long roomy = run(d, measured, 8 * fetch);
      assertThat(roomy).as("held at a budget of 8 fetches").isGreaterThan(tight);
    }
  }
}

package dev.riffle.stage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.riffle.dataset.DatasetValidator;
import dev.riffle.dataset.Manifest;
import dev.riffle.dataset.storage.LocalStorage;
import dev.riffle.hadoop.testing.TestDatasets;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Eviction under a {@link CacheLimit}: LRU and furthest-next-use order, pinned blobs, the fail-fast
 * checks, and views that must never be served partial. Three small datasets A, B and C of three
 * files each; the limit holds two of them, so staging the third must evict.
 */
class CacheEvictionTest {
  static final StageOptions OPTIONS = SnapshotStagerTest.SMALL_PARTS;

  @TempDir Path dir;
  Path cache;
  List<Path> sources = new ArrayList<>();
  List<Manifest> manifests = new ArrayList<>();
  CacheEvictor evictor;

  @BeforeEach
  void writeDatasets() throws IOException {
    cache = dir.resolve("cache");
    evictor = new CacheEvictor(cache);
    for (int i = 0; i < 3; i++) {
      Path source = dir.resolve("source-" + i);
      manifests.add(TestDatasets.write(new LocalStorage(source), 300_000, 100_000, 10 + i));
      sources.add(source);
    }
    assertThat(manifests.get(0).files()).hasSizeGreaterThanOrEqualTo(3);
  }

  long size(int i) {
    return manifests.get(i).files().stream()
        .mapToLong(f -> evictor.allocated(f.byteLength()))
        .sum();
  }

  Set<String> blobs(int i) {
    return manifests.get(i).files().stream()
        .map(Manifest.DataFile::sha256)
        .collect(Collectors.toSet());
  }

  /** Room for the two largest datasets, not three. */
  CacheLimit roomForTwo(EvictionPolicy policy, NextUse next) {
    long two = size(0) + size(1) + size(2) - Math.min(size(0), Math.min(size(1), size(2)));
    return new CacheLimit(two, policy, next);
  }

  StageReport stage(int i, CacheLimit limit) throws IOException {
    return new SnapshotStager(cache, OPTIONS.withCacheLimit(limit))
        .stage(new LocalStorage(sources.get(i)), 1);
  }

  boolean complete(int i) {
    return SnapshotStager.completeView(cache, manifests.get(i).datasetId(), 1).isPresent();
  }

  /** Marks dataset i's blobs last used {@code minutesAgo} minutes ago. */
  void usedAgo(int i, int minutesAgo) throws IOException {
    long t = System.currentTimeMillis() - minutesAgo * 60_000L;
    for (String sha : blobs(i)) {
      Files.setLastModifiedTime(cache.resolve("blobs/" + sha), FileTime.fromMillis(t));
    }
  }

  @Test
  void lruEvictsTheLeastRecentlyUsedAndTheViewIsRestagedWhole() throws Exception {
    CacheLimit limit = roomForTwo(EvictionPolicy.LRU, null);
    stage(0, limit);
    stage(1, limit);
    assertThat(evictor.usedBytes()).isEqualTo(size(0) + size(1));
    usedAgo(0, 5);
    usedAgo(1, 10);

    StageReport c = stage(2, limit);

    assertThat(c.blobsEvicted()).isPositive();
    assertThat(c.bytesEvicted())
        .isGreaterThanOrEqualTo(size(2) - (limit.maxBytes() - size(0) - size(1)));
    assertThat(evictor.usedBytes()).isLessThanOrEqualTo(limit.maxBytes());
    List<String> left = CacheChecks.blobNames(cache);
    assertThat(left).containsAll(blobs(0)).containsAll(blobs(2));
    assertThat(blobs(1)).anyMatch(sha -> !left.contains(sha));
    // B lost a blob: its view is no longer served, and cannot be pinned.
    assertThat(complete(0)).isTrue();
    assertThat(complete(1)).isFalse();
    assertThat(complete(2)).isTrue();
    Path viewB = cache.resolve("snapshots/" + manifests.get(1).datasetId() + "/1");
    assertThat(CacheLease.pinView(viewB)).isEmpty();
    CacheChecks.assertNothingCorrupt(cache);

    // Staging B again restores the whole view (and evicts A, now the least recently used).
    StageReport b = stage(1, limit);
    assertThat(b.alreadyComplete()).isFalse();
    assertThat(b.filesReused()).isEqualTo(blobs(1).size() - b.filesDownloaded());
    assertThat(complete(1)).isTrue();
    assertThat(complete(0)).isFalse();
    try (BufferAllocator al = new RootAllocator()) {
      assertThat(
              DatasetValidator.validate(new LocalStorage(b.view()), 1, true, al, null).problems())
          .isEmpty();
    }
  }

  @Test
  void furthestNextUseEvictsWhatThePlanNeedsLast() throws Exception {
    // The plan reads A's files after B's: A goes first although LRU would pick B.
    List<String> plan = new ArrayList<>(blobs(1));
    plan.addAll(blobs(0));
    plan.addAll(blobs(2));
    CacheLimit limit = roomForTwo(EvictionPolicy.FURTHEST_NEXT_USE, NextUse.fromOrder(plan));
    stage(0, limit);
    stage(1, limit);
    usedAgo(0, 5);
    usedAgo(1, 10);

    StageReport c = stage(2, limit);

    assertThat(c.blobsEvicted()).isPositive();
    List<String> left = CacheChecks.blobNames(cache);
    assertThat(left).containsAll(blobs(1)).containsAll(blobs(2));
    assertThat(complete(0)).isFalse();
    assertThat(complete(1)).isTrue();
  }

  @Test
  void pinnedBlobsAreNeverEvicted() throws Exception {
    CacheLimit limit = roomForTwo(EvictionPolicy.LRU, null);
    StageReport a = stage(0, limit);
    StageReport b = stage(1, limit);
    usedAgo(0, 10);
    usedAgo(1, 5);
    Optional<CacheLease> pinA = CacheLease.pinView(a.view());
    assertThat(pinA).isPresent();
    // Pinning counts as a use.
    usedAgo(0, 10);

    try (CacheLease lease = pinA.get()) {
      stage(2, limit);
      assertThat(complete(0)).isTrue();
      assertThat(complete(1)).isFalse();
      assertThat(CacheChecks.blobNames(cache)).containsAll(blobs(0));

      // Both others pinned: nothing can go, so the stage fails before fetching a byte.
      try (CacheLease pinC =
          CacheLease.pinView(cache.resolve("snapshots/" + manifests.get(2).datasetId() + "/1"))
              .orElseThrow()) {
        FaultyStorage counting = new FaultyStorage(new LocalStorage(sources.get(1)));
        List<String> before = CacheChecks.blobNames(cache);
        assertThatThrownBy(
                () -> new SnapshotStager(cache, OPTIONS.withCacheLimit(limit)).stage(counting, 1))
            .isInstanceOf(IOException.class)
            .hasMessageContaining("cannot make room")
            .hasMessageContaining("in use by open views");
        assertThat(counting.bytesRead.get()).isZero();
        assertThat(CacheChecks.blobNames(cache)).isEqualTo(before);
        assertThat(pinC.view()).isNotNull();
      }
    }
    assertThat(b.view()).exists();
    // Released: A can go now.
    usedAgo(0, 60);
    stage(1, limit);
    assertThat(complete(0)).isFalse();
    CacheChecks.assertNothingCorrupt(cache);
  }

  @Test
  void leasesOfDeadProcessesPinNothing() throws Exception {
    CacheLimit limit = roomForTwo(EvictionPolicy.LRU, null);
    stage(0, limit);
    stage(1, limit);
    usedAgo(0, 10);
    usedAgo(1, 5);
    long dead = SnapshotStagerTest.deadPid();
    Path lease = cache.resolve("leases/" + dead + ".00ff" + CacheLease.SUFFIX);
    Files.write(lease, String.join("\n", blobs(0)).getBytes(StandardCharsets.US_ASCII));

    stage(2, limit);

    assertThat(complete(0)).isFalse();
    assertThat(lease).doesNotExist();
  }

  /** Dataset j's blobs, in a fixed order. */
  List<String> ordered(int j) {
    return blobs(j).stream().sorted().toList();
  }

  /** The blobs of the datasets in {@code order}, one after the other. */
  List<String> planOf(int... order) {
    List<String> plan = new ArrayList<>();
    for (int j : order) {
      plan.addAll(ordered(j));
    }
    return plan;
  }

  @Test
  void furthestByLivePlansEvictsWhatTheirMergedOrderNeedsLast() throws Exception {
    CacheLimit limit =
        CacheLimit.furthestByPlans(roomForTwo(EvictionPolicy.LRU, null).maxBytes(), cache);
    stage(0, limit);
    stage(1, limit);
    // LRU alone would evict A.
    usedAgo(0, 10);
    usedAgo(1, 5);
    try (CachePlan first = CachePlan.publish(cache, planOf(2, 2, 1));
        CachePlan second = CachePlan.publish(cache, planOf(0))) {
      // Next uses: A from 0 (second), B from 2·|C| (first): B is needed last.
      NextUse plans = NextUse.fromPlans(cache);
      assertThat(plans.of(ordered(0).get(0))).isZero();
      assertThat(plans.of(ordered(1).get(0))).isEqualTo(2L * ordered(2).size());
      assertThat(plans.of("0".repeat(64))).isEqualTo(NextUse.NEVER);

      StageReport c = stage(2, limit);

      assertThat(c.blobsEvicted()).isPositive();
      assertThat(CacheChecks.blobNames(cache)).containsAll(blobs(0)).containsAll(blobs(2));
      assertThat(complete(0)).isTrue();
      assertThat(complete(1)).isFalse();
      assertThat(first.file()).exists();
      assertThat(second.file()).exists();
    }
    assertThat(CacheChecks.list(cache.resolve(CacheLayout.PLANS_DIR))).isEmpty();
    CacheChecks.assertNothingCorrupt(cache);
  }

  @Test
  void aSecondPlanNeedingBSoonerTurnsTheChoiceToA() throws Exception {
    CacheLimit limit =
        CacheLimit.furthestByPlans(roomForTwo(EvictionPolicy.LRU, null).maxBytes(), cache);
    stage(0, limit);
    stage(1, limit);
    // LRU alone would evict B.
    usedAgo(0, 5);
    usedAgo(1, 10);
    try (CachePlan first = CachePlan.publish(cache, planOf(2, 0, 1));
        CachePlan second = CachePlan.publish(cache, planOf(1))) {
      // B's smallest position is 0 (second), A's 3 (first): A is needed last.
      stage(2, limit);
      assertThat(complete(0)).isFalse();
      assertThat(complete(1)).isTrue();
      assertThat(CacheChecks.blobNames(cache)).containsAll(blobs(1)).containsAll(blobs(2));
    }
  }

  @Test
  void updatedPlansAreReadAfreshByEachPass() throws Exception {
    CacheLimit limit =
        CacheLimit.furthestByPlans(roomForTwo(EvictionPolicy.LRU, null).maxBytes(), cache);
    stage(0, limit);
    stage(1, limit);
    usedAgo(0, 5);
    usedAgo(1, 10);
    try (CachePlan plan = CachePlan.publish(cache, planOf(1))) {
      // The plan moved on: B is done with, A comes next.
      plan.update(planOf(0));
      stage(2, limit);
      assertThat(complete(0)).isTrue();
      assertThat(complete(1)).isFalse();
    }
  }

  @Test
  void plansOfDeadProcessesCountForNothingAndAreDeleted() throws Exception {
    CacheLimit limit =
        CacheLimit.furthestByPlans(roomForTwo(EvictionPolicy.LRU, null).maxBytes(), cache);
    stage(0, limit);
    stage(1, limit);
    usedAgo(0, 10);
    usedAgo(1, 5);
    long dead = SnapshotStagerTest.deadPid();
    Path deadPlan = cache.resolve("plans/" + dead + ".00ff" + CachePlan.SUFFIX);
    Files.write(deadPlan, String.join("\n", planOf(0)).getBytes(StandardCharsets.US_ASCII));
    Path deadTemp = cache.resolve("plans/" + dead + ".01ff.plan-tmp");
    Files.write(deadTemp, new byte[10]);
    assertThat(NextUse.fromPlans(cache).of(ordered(0).get(0))).isEqualTo(NextUse.NEVER);
    assertThat(deadPlan).doesNotExist();
    Files.write(deadPlan, String.join("\n", planOf(0)).getBytes(StandardCharsets.US_ASCII));

    try (CachePlan live = CachePlan.publish(cache, planOf(1))) {
      stage(2, limit);
      // The dead plan wanted A: as if it never had, A (needed by no live plan) went.
      assertThat(complete(0)).isFalse();
      assertThat(complete(1)).isTrue();
      assertThat(deadPlan).doesNotExist();
      assertThat(deadTemp).doesNotExist();
      assertThat(live.file()).exists();
    }
  }

  @Test
  void anLruPassAlsoDeletesDeadPlans() throws Exception {
    CacheLimit limit = roomForTwo(EvictionPolicy.LRU, null);
    stage(0, limit);
    stage(1, limit);
    Path deadPlan =
        cache.resolve("plans/" + SnapshotStagerTest.deadPid() + ".00ff" + CachePlan.SUFFIX);
    Files.write(deadPlan, String.join("\n", planOf(0)).getBytes(StandardCharsets.US_ASCII));
    stage(2, limit);
    assertThat(deadPlan).doesNotExist();
  }

  @Test
  void pinnedBlobsStayThoughNoPlanNeedsThem() throws Exception {
    CacheLimit limit =
        CacheLimit.furthestByPlans(roomForTwo(EvictionPolicy.LRU, null).maxBytes(), cache);
    StageReport a = stage(0, limit);
    stage(1, limit);
    usedAgo(0, 10);
    usedAgo(1, 5);
    try (CacheLease pin = CacheLease.pinView(a.view()).orElseThrow();
        CachePlan plan = CachePlan.publish(cache, planOf(1))) {
      usedAgo(0, 10);
      // A is NEVER in the plans and least recently used, but pinned: B, needed soon, goes.
      stage(2, limit);
      assertThat(complete(0)).isTrue();
      assertThat(complete(1)).isFalse();
      assertThat(CacheChecks.blobNames(cache)).containsAll(blobs(0));
      assertThat(plan.file()).exists();
      assertThat(pin.view()).isNotNull();
    }
  }

  @Test
  void unreadablePlansOfLiveProcessesAreIgnored() throws Exception {
    CacheLimit limit =
        CacheLimit.furthestByPlans(roomForTwo(EvictionPolicy.LRU, null).maxBytes(), cache);
    stage(0, limit);
    stage(1, limit);
    usedAgo(0, 5);
    usedAgo(1, 10);
    long me = ProcessHandle.current().pid();
    // A plan naming A first, but with a line that is no SHA-256: the whole plan counts for nothing.
    List<String> garbled = new ArrayList<>(planOf(0));
    garbled.add("not a blob");
    Path bad = cache.resolve("plans/" + me + ".0bad" + CachePlan.SUFFIX);
    Files.write(bad, String.join("\n", garbled).getBytes(StandardCharsets.US_ASCII));
    Path binary = cache.resolve("plans/" + me + ".1bad" + CachePlan.SUFFIX);
    Files.write(binary, new byte[] {(byte) 0xff, (byte) 0xfe, 0, 10});
    try {
      assertThat(NextUse.fromPlans(cache).of(ordered(0).get(0))).isEqualTo(NextUse.NEVER);
      try (CachePlan good = CachePlan.publish(cache, planOf(1))) {
        stage(2, limit);
        // Only the good plan counted: A (needed never) went, although it is the most recent.
        assertThat(complete(0)).isFalse();
        assertThat(complete(1)).isTrue();
        // Left for their (live) writer to replace or withdraw.
        assertThat(bad).exists();
        assertThat(binary).exists();
      }
    } finally {
      Files.deleteIfExists(bad);
      Files.deleteIfExists(binary);
    }
  }

  @Test
  void limitBelowFourLargestBlobsFailsFastNamingBothNumbers() throws Exception {
    long largest =
        manifests.get(0).files().stream().mapToLong(Manifest.DataFile::byteLength).max().orElse(0);
    FaultyStorage counting = new FaultyStorage(new LocalStorage(sources.get(0)));
    SnapshotStager stager =
        new SnapshotStager(cache, OPTIONS.withCacheLimit(CacheLimit.lru(3 * largest)));

    assertThatThrownBy(() -> stager.stage(counting, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("cache limit of " + 3 * largest + " bytes")
        .hasMessageContaining("(" + largest + " bytes)")
        .hasMessageContaining("at least " + 4 * largest);
    assertThat(counting.bytesRead.get()).isZero();
    assertThat(CacheChecks.blobNames(cache)).isEmpty();

    // Four times the largest file but less than the snapshot: also refused up front.
    long total = size(0);
    long limit = Math.max(4 * largest, total - 4096);
    if (limit < total) {
      assertThatThrownBy(
              () ->
                  new SnapshotStager(cache, OPTIONS.withCacheLimit(CacheLimit.lru(limit)))
                      .stage(counting, 1))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("more than its limit of " + limit);
    }
    assertThat(counting.bytesRead.get()).isZero();
  }
}

package dev.riffle.s3.stage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.riffle.format.dataset.DatasetValidator;
import dev.riffle.format.dataset.Manifest;
import dev.riffle.format.io.LocalStorage;
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

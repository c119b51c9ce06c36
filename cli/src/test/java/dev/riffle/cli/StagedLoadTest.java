package dev.riffle.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.Manifest;
import dev.riffle.dataset.storage.LocalStorage;
import dev.riffle.hadoop.testing.TestDatasets;
import dev.riffle.stage.CacheEvictor;
import dev.riffle.stage.CacheLayout;
import dev.riffle.stage.CachePlan;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code riffle stage --policy furthest} evicts by the plans published in the cache, and {@code
 * riffle load} of a staged view pins it. Three local datasets A, B and C of several files; the
 * limit holds two of them, so staging the third evicts.
 */
class StagedLoadTest {
  @TempDir Path dir;
  List<Path> sources = new ArrayList<>();
  List<Manifest> manifests = new ArrayList<>();

  @BeforeEach
  void writeDatasets() throws IOException {
    for (int i = 0; i < 3; i++) {
      Path source = dir.resolve("source-" + i);
      manifests.add(TestDatasets.write(new LocalStorage(source), 300_000, 100_000, 20 + i));
      sources.add(source);
    }
    assertThat(manifests.get(0).files()).hasSizeGreaterThanOrEqualTo(3);
  }

  @AfterEach
  void resetHook() {
    LoadCommand.afterBatch = n -> {};
  }

  long size(Path cache, int i) throws IOException {
    CacheEvictor e = new CacheEvictor(cache);
    return manifests.get(i).files().stream().mapToLong(f -> e.allocated(f.byteLength())).sum();
  }

  /** Room for the two largest datasets, not three. */
  long roomForTwo(Path cache) throws IOException {
    long a = size(cache, 0);
    long b = size(cache, 1);
    long c = size(cache, 2);
    return a + b + c - Math.min(a, Math.min(b, c));
  }

  JsonNode stage(Path cache, int i, String policy) throws IOException {
    return Json.MAPPER.readTree(
        Cli.ok(
                "stage",
                sources.get(i).toString(),
                "--cache",
                cache.toString(),
                "--limit",
                Long.toString(roomForTwo(cache)),
                "--policy",
                policy,
                "--json")
            .out());
  }

  Path view(Path cache, int i) {
    return cache.resolve("snapshots/" + manifests.get(i).datasetId() + "/1");
  }

  boolean complete(Path cache, int i) {
    return Files.exists(view(cache, i).resolve(CacheLayout.COMPLETE));
  }

  Set<String> blobs(Path cache) throws IOException {
    try (Stream<Path> s = Files.list(cache.resolve(CacheLayout.BLOBS_DIR))) {
      Set<String> out = new HashSet<>();
      s.forEach(p -> out.add(p.getFileName().toString()));
      return out;
    }
  }

  List<String> shas(int i) {
    return manifests.get(i).files().stream().map(Manifest.DataFile::sha256).toList();
  }

  List<String> reversedShas(int i) {
    List<String> out = new ArrayList<>(shas(i));
    Collections.reverse(out);
    return out;
  }

  /** Marks dataset i's blobs last used {@code minutesAgo} minutes ago. */
  void usedAgo(Path cache, int i, int minutesAgo) throws IOException {
    FileTime t = FileTime.fromMillis(System.currentTimeMillis() - minutesAgo * 60_000L);
    for (String sha : shas(i)) {
      Files.setLastModifiedTime(cache.resolve("blobs/" + sha), t);
    }
  }

  /** A and B staged, A used longer ago: LRU would evict A first. */
  Path cacheWithAandB(String name, String policy) throws IOException {
    Path cache = dir.resolve(name);
    stage(cache, 0, policy);
    stage(cache, 1, policy);
    usedAgo(cache, 0, 10);
    usedAgo(cache, 1, 5);
    return cache;
  }

  List<Path> list(Path dir) throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.toList();
    }
  }

  @Test
  void furthestEvictsWhatLivePlansNeedLastWhereLruEvictsTheOldest() throws Exception {
    // A reader reads all of A, then B's files in reverse manifest order.
    List<String> plan = new ArrayList<>(shas(0));
    plan.addAll(reversedShas(1));

    Path furthest = cacheWithAandB("furthest", "furthest");
    try (CachePlan p = CachePlan.publish(furthest, plan)) {
      JsonNode c = stage(furthest, 2, "furthest");
      assertThat(c.get("blobsEvicted").asInt()).isPositive();
      Set<String> left = blobs(furthest);
      assertThat(left).containsAll(shas(0)).containsAll(shas(2));
      // B's files went from the one needed last: those left are the ones needed soonest.
      List<String> bByNextUse = reversedShas(1);
      int kept = (int) bByNextUse.stream().filter(left::contains).count();
      assertThat(kept).isLessThan(bByNextUse.size());
      assertThat(bByNextUse.subList(0, kept)).allMatch(left::contains);
      assertThat(complete(furthest, 0)).isTrue();
      assertThat(complete(furthest, 1)).isFalse();
      assertThat(p.file()).exists();
    }

    // The same cache and plan under LRU: A, the least recently used, goes instead.
    Path lru = cacheWithAandB("lru", "lru");
    try (CachePlan p = CachePlan.publish(lru, plan)) {
      stage(lru, 2, "lru");
      assertThat(complete(lru, 0)).isFalse();
      assertThat(complete(lru, 1)).isTrue();
      assertThat(blobs(lru)).containsAll(shas(1)).containsAll(shas(2));
    }

    // With no plan at all, furthest falls back to LRU order.
    Path none = cacheWithAandB("none", "furthest");
    stage(none, 2, "furthest");
    assertThat(complete(none, 0)).isFalse();
    assertThat(complete(none, 1)).isTrue();
  }

  @Test
  void loadOfAStagedViewPinsItAndPublishesWhatItReadsNext() throws Exception {
    Path cache = cacheWithAandB("cache", "furthest");
    Path viewA = view(cache, 0);
    int batch = 8;
    long rows = manifests.get(0).totalRows();
    long perEpoch = (rows + batch - 1) / batch;
    List<String> failures = new ArrayList<>();
    List<Long> checked = new ArrayList<>();
    try (BufferAllocator a = new RootAllocator();
        Dataset d = Dataset.open(new LocalStorage(viewA), a)) {
      LoadCommand.afterBatch =
          n -> {
            long epoch = (n - 1) / perEpoch;
            long cursor = (n - 1) % perEpoch + 1;
            if (cursor != 1) {
              return;
            }
            try {
              // A pinned run publishes no plan: its blobs cannot be evicted anyway.
              assertThat(list(cache.resolve(CacheLayout.PLANS_DIR))).isEmpty();
              List<Path> leases = list(cache.resolve(CacheLayout.LEASES_DIR));
              assertThat(leases).hasSize(1);
              assertThat(Files.readAllLines(leases.get(0), StandardCharsets.US_ASCII))
                  .containsExactlyInAnyOrderElementsOf(shas(0));
              if (epoch == 0) {
                // A stage needing room now: A, least recently used, is pinned;
                // B goes although it was used more recently.
                stage(cache, 2, "lru");
                assertThat(complete(cache, 0)).isTrue();
                assertThat(complete(cache, 1)).isFalse();
              }
              checked.add(n);
            } catch (IOException | AssertionError e) {
              failures.add("after batch " + n + ": " + e);
            }
          };
      Cli.Result r =
          Cli.ok(
              "load",
              viewA.toString(),
              "--sampler",
              "block",
              "--block",
              "2",
              "--fetch",
              "2",
              "--batch",
              Integer.toString(batch),
              "--seed",
              "5",
              "--epochs",
              "2",
              "--threads",
              "2",
              "--json");
      assertThat(failures).isEmpty();
      assertThat(checked).containsExactly(1L, perEpoch + 1);
      JsonNode j = Json.MAPPER.readTree(r.out());
      assertThat(j.get("coverageExact").asBoolean()).isTrue();
      assertThat(j.get("rows").asLong()).isEqualTo(2 * perEpoch * batch);
    }
    // The run unpinned the view.
    assertThat(list(cache.resolve(CacheLayout.PLANS_DIR))).isEmpty();
    assertThat(list(cache.resolve(CacheLayout.LEASES_DIR))).isEmpty();

    // B lost files to C's stage: loading its view says so instead of failing mid-run.
    Cli.Result b = Cli.run("load", view(cache, 1).toString());
    assertThat(b.exitCode()).isEqualTo(1);
    assertThat(b.err()).contains("is a staged view that is not complete").contains("riffle stage");
  }
}

package dev.riffle.cli;

import dev.riffle.format.dataset.Manifest;
import dev.riffle.loader.pipeline.Loader;
import dev.riffle.s3.stage.CacheLayout;
import dev.riffle.s3.stage.CacheLease;
import dev.riffle.s3.stage.CachePlan;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A run of {@code riffle load} over a staged view ({@code CACHE/snapshots/<id>/<version>}, see
 * {@link CacheLayout}): the view is pinned for the whole run, so that no other process's eviction
 * removes a file before it is opened, and the blobs the loader reads next are published as the
 * cache's {@link CachePlan}, so that stages with {@code --policy furthest} evict what is needed
 * last. The plan is refreshed at each epoch start and as the run advances, at most every {@link
 * #MIN_REFRESH_NANOS} and at most 5% of the time (a sequential plan's walk is O(rows left)).
 */
final class StagedRun implements AutoCloseable {
  static final long MIN_REFRESH_NANOS = 1_000_000_000L;

  private final Path cache;
  private final CacheLease lease;
  private CachePlan plan;
  private long planEpoch = -1;
  private long nextRefreshNanos;

  private StagedRun(Path cache, CacheLease lease) {
    this.cache = cache;
    this.lease = lease;
  }

  /**
   * Pins the staged view a location names, or returns null if it names no staged view.
   *
   * @throws IOException if it is a view of a cache but not complete (interrupted or evicted)
   */
  static StagedRun pinIfStaged(Locations.Location loc) throws IOException {
    if (loc.path() == null) {
      return null;
    }
    Path cache = CacheLayout.cacheOf(loc.path()).orElse(null);
    if (cache == null) {
      return null;
    }
    CacheLease lease =
        CacheLease.pinView(loc.path())
            .orElseThrow(
                () ->
                    new IOException(
                        loc.uri()
                            + " is a staged view that is not complete (interrupted, or evicted"
                            + " from its cache): stage it again with 'riffle stage'"));
    return new StagedRun(cache, lease);
  }

  /**
   * Publishes the files the loader reads next, or refreshes them: always at a new epoch, else when
   * the last walk is long enough ago. Call before each batch.
   */
  void follow(Loader loader, Manifest manifest) throws IOException {
    long epoch = loader.state().epoch();
    long now = System.nanoTime();
    if (epoch == planEpoch && now - nextRefreshNanos < 0) {
      return;
    }
    int[] files = loader.upcomingFiles();
    List<String> shas = new ArrayList<>(files.length);
    for (int i : files) {
      shas.add(manifest.files().get(i).sha256());
    }
    if (plan == null) {
      plan = CachePlan.publish(cache, shas);
    } else {
      plan.update(shas);
    }
    long after = System.nanoTime();
    planEpoch = epoch;
    nextRefreshNanos = after + Math.max(MIN_REFRESH_NANOS, 20 * (after - now));
  }

  /** The published plan, or null before the first {@link #follow}. */
  CachePlan plan() {
    return plan;
  }

  /** Withdraws the plan, then unpins the view. */
  @Override
  public void close() throws IOException {
    try {
      if (plan != null) {
        plan.close();
      }
    } finally {
      lease.close();
    }
  }
}

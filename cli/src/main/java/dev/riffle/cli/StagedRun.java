package dev.riffle.cli;

import dev.riffle.stage.CacheLayout;
import dev.riffle.stage.CacheLease;
import java.io.IOException;
import java.nio.file.Path;

/**
 * A run of {@code riffle load} over a staged view ({@code CACHE/snapshots/<id>/<version>}, see
 * {@link CacheLayout}): the view is pinned for the whole run, so that no other process's eviction
 * removes a file before it is opened.
 *
 * <p>It publishes no {@link dev.riffle.stage.CachePlan}: every blob of the view is pinned, and a
 * plan only orders blobs that may be evicted, so it would change nothing. Plans are for a process
 * that will read a staged snapshot without holding it yet (Java API: {@code CachePlan.publish} with
 * {@code Loader.upcomingFiles}).
 */
final class StagedRun implements AutoCloseable {
  private final CacheLease lease;

  private StagedRun(CacheLease lease) {
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
    return new StagedRun(lease);
  }

  /** Unpins the view. */
  @Override
  public void close() throws IOException {
    lease.close();
  }
}

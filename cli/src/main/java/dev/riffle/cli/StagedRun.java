package dev.riffle.cli;

import dev.riffle.stage.CacheLayout;
import dev.riffle.stage.CacheLease;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

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
    CacheLease lease = CacheLease.pinView(loc.path()).orElseThrow(() -> notComplete(loc, cache));
    return new StagedRun(lease);
  }

  /**
   * Fails with how to stage it again if a location is a staged view that is not complete; does
   * nothing for any other location. Every command that opens a dataset checks this, so that an
   * evicted view is never "no such file".
   */
  static void checkComplete(Locations.Location loc) throws IOException {
    if (loc.path() == null) {
      return;
    }
    Path cache = CacheLayout.cacheOf(loc.path()).orElse(null);
    if (cache != null && !Files.isRegularFile(loc.path().resolve(CacheLayout.COMPLETE))) {
      throw notComplete(loc, cache);
    }
  }

  private static IOException notComplete(Locations.Location loc, Path cache) {
    String again = "stage it again with 'riffle stage URI@VERSION --cache " + cache + "'";
    Properties from = new Properties();
    try (InputStream in = Files.newInputStream(loc.path().resolve(CacheLayout.SOURCE))) {
      from.load(in);
      again =
          "stage it again with 'riffle stage "
              + from.getProperty("source")
              + "@"
              + from.getProperty("version")
              + " --cache "
              + cache
              + "'";
    } catch (IOException e) {
      // Staged before views recorded their source: the generic advice.
    }
    return new IOException(
        loc.uri()
            + " is a staged view that is not complete: evicted from its cache (or its stage was"
            + " interrupted, or found it damaged); "
            + again);
  }

  /** Unpins the view. */
  @Override
  public void close() throws IOException {
    lease.close();
  }
}

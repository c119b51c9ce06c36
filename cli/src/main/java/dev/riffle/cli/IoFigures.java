package dev.riffle.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.riffle.dataset.storage.Storage;
import dev.riffle.format.read.ReadStats;
import dev.riffle.hadoop.lazy.LazyStats;
import dev.riffle.hadoop.lazy.LazyStorage;
import java.util.Locale;

/**
 * The I/O figures of a command's reads, in one form for {@code take --stats}, {@code scan --stats}
 * and {@code load}'s report: the reader's counters, and what lazy reads fetched from the store
 * (GETs, bytes, rounds, cache hits and misses) over the same stretch, or that a staged view fetched
 * nothing.
 */
final class IoFigures {
  private final LazyStats lazy;
  private final long[] before;
  private final boolean staged;

  private IoFigures(Storage storage, boolean staged) {
    this.lazy = storage instanceof LazyStorage l ? l.stats() : null;
    this.before = counters();
    this.staged = staged;
  }

  /**
   * Starts counting the lazy fetches of {@code storage} (none unless it is a {@link LazyStorage});
   * {@code staged}: the dataset is a staged view, read from local disk.
   */
  static IoFigures start(Storage storage, boolean staged) {
    return new IoFigures(storage, staged);
  }

  /** GETs, bytes fetched, fetch rounds, cache hits, cache misses; null if not lazy. */
  private long[] counters() {
    if (lazy == null) {
      return null;
    }
    return new long[] {
      lazy.remoteRequests(),
      lazy.remoteBytes(),
      lazy.fetchRounds(),
      lazy.cacheHits(),
      lazy.chunkMisses() + lazy.rangeMisses()
    };
  }

  /** The reader's counters as {@code take --stats} prints them. */
  static ObjectNode reads(long rows, ReadStats s) {
    ObjectNode node = Json.MAPPER.createObjectNode();
    node.put("rows", rows);
    node.put("reads", s.reads());
    node.put("bytesRead", s.bytesRead());
    node.put("sectors", s.sectors());
    node.put("rounds", s.rounds());
    node.put("valuesDecoded", s.valuesDecoded());
    return node;
  }

  /**
   * Adds {@code "lazy"} (what was fetched since {@link #start}) or {@code "staged"} (nothing
   * fetched) to {@code node}; nothing for other datasets.
   */
  void putInto(ObjectNode node) {
    long[] after = counters();
    if (after != null) {
      ObjectNode remote = node.putObject("lazy");
      remote.put("gets", after[0] - before[0]);
      remote.put("bytesFetched", after[1] - before[1]);
      remote.put("fetchRounds", after[2] - before[2]);
      remote.put("cacheHits", after[3] - before[3]);
      remote.put("cacheMisses", after[4] - before[4]);
    } else if (staged) {
      ObjectNode local = node.putObject("staged");
      local.put("gets", 0);
      local.put("bytesFetched", 0);
    }
  }

  /** The same as a line of a text report, or null for a dataset that is neither lazy nor staged. */
  String line() {
    long[] after = counters();
    if (after != null) {
      return String.format(
          Locale.ROOT,
          "lazy: %s, %s fetched in %s, %s, %s",
          Sizes.count(after[0] - before[0], "GET"),
          Sizes.bytes(after[1] - before[1]),
          Sizes.count(after[2] - before[2], "round"),
          Sizes.count(after[3] - before[3], "cache hit"),
          Sizes.count(after[4] - before[4], "cache miss"));
    }
    return staged ? "staged: read from local disk, nothing fetched" : null;
  }
}

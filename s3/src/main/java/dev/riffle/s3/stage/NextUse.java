package dev.riffle.s3.stage;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * When a blob is next read, for {@link EvictionPolicy#FURTHEST_NEXT_USE}: the position in the
 * caller's coming reads (smaller is sooner), or {@link #NEVER}.
 *
 * <p>A loader feeds it from its epoch plan: walk the coming batches, map each row to the data file
 * that holds it (the manifest's {@code files().get(i).sha256()} names the blob), and pass the blobs
 * in the order they are first touched to {@link #fromOrder}. The function is asked during eviction
 * only, so an implementation may follow a plan that advances (e.g. read an index the loader updates
 * every batch); it must be thread-safe.
 */
@FunctionalInterface
public interface NextUse {
  /** Not needed by the coming reads: evicted before any blob that is. */
  long NEVER = Long.MAX_VALUE;

  /** The position at which blob {@code sha256} is next read, or {@link #NEVER}. */
  long of(String sha256);

  /** Nothing is planned: every blob is {@link #NEVER}, so the policy falls back to LRU order. */
  NextUse NONE = sha256 -> NEVER;

  /**
   * The next use of each blob is the index of its first appearance in {@code sha256s} (the blobs in
   * the order the coming reads touch them; repeats are fine).
   */
  static NextUse fromOrder(List<String> sha256s) {
    Map<String, Long> first = new HashMap<>();
    for (int i = 0; i < sha256s.size(); i++) {
      first.putIfAbsent(sha256s.get(i), (long) i);
    }
    return sha256 -> first.getOrDefault(sha256, NEVER);
  }
}

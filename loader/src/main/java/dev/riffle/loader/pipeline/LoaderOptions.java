package dev.riffle.loader.pipeline;

import dev.riffle.loader.plan.Sampler;
import dev.riffle.loader.plan.Tail;
import java.util.List;

/**
 * How a {@link Loader} runs. Immutable; change one field with the {@code with*} methods.
 *
 * @param sampler the epoch planner
 * @param globalBatchRows G, rows of one global batch; each rank gets G/W
 * @param seed the run's seed
 * @param epochs epochs of the run, numbered 0..epochs-1; a resumed run continues to the same end
 * @param rank this process's rank r
 * @param world the world size W, a divisor of G
 * @param tail drop or pad the last partial batch
 * @param fields columns to read (null for all); the label column is added if missing
 * @param label a categorical column to measure label diversity with, or null
 * @param threads I/O threads
 * @param fetchesInFlight fetches read ahead of the one being handed out
 * @param prefetchBytes bytes of Arrow buffers the loader may hold, prefetched and handed-out
 *     fetches together; at least one fetch ({@link BudgetTooSmallException} otherwise)
 */
public record LoaderOptions(
    Sampler sampler,
    int globalBatchRows,
    long seed,
    long epochs,
    int rank,
    int world,
    Tail tail,
    List<String> fields,
    String label,
    int threads,
    int fetchesInFlight,
    long prefetchBytes) {

  public LoaderOptions {
    if (globalBatchRows < 1) {
      throw new IllegalArgumentException("global batch rows must be at least 1");
    }
    if (world < 1 || globalBatchRows % world != 0) {
      throw new IllegalArgumentException(
          "world size " + world + " does not divide the global batch of " + globalBatchRows);
    }
    if (rank < 0 || rank >= world) {
      throw new IllegalArgumentException("rank " + rank + " outside [0, " + world + ")");
    }
    if (epochs < 1 || threads < 1 || fetchesInFlight < 1 || prefetchBytes < 1) {
      throw new IllegalArgumentException(
          "epochs, threads, fetches in flight and prefetch bytes must be positive");
    }
    fields = fields == null ? null : List.copyOf(fields);
  }

  /** I/O threads of {@link #of}, and of {@code riffle load} without {@code --threads}. */
  public static final int DEFAULT_THREADS = 8;

  /** Fetches read ahead by {@link #of}, and by {@code riffle load} without {@code --in-flight}. */
  public static final int DEFAULT_FETCHES_IN_FLIGHT = 2;

  /** The prefetch budget of {@link #of} in MiB, as {@code riffle load --memory-mb} gives it. */
  public static final int DEFAULT_PREFETCH_MIB = 1024;

  /**
   * One rank, one epoch, padding, all columns, and the defaults {@code riffle load} has too (so
   * that a run from Java measures what the command measured): {@value #DEFAULT_THREADS} I/O
   * threads, {@value #DEFAULT_FETCHES_IN_FLIGHT} fetches ahead, a budget of {@value
   * #DEFAULT_PREFETCH_MIB} MiB (a bound the loader holds fetched rows under, not memory it takes up
   * front).
   */
  public static LoaderOptions of(Sampler sampler, int globalBatchRows, long seed) {
    return new LoaderOptions(
        sampler,
        globalBatchRows,
        seed,
        1,
        0,
        1,
        Tail.PAD,
        null,
        null,
        DEFAULT_THREADS,
        DEFAULT_FETCHES_IN_FLIGHT,
        (long) DEFAULT_PREFETCH_MIB << 20);
  }

  public LoaderOptions withEpochs(long e) {
    return new LoaderOptions(
        sampler,
        globalBatchRows,
        seed,
        e,
        rank,
        world,
        tail,
        fields,
        label,
        threads,
        fetchesInFlight,
        prefetchBytes);
  }

  public LoaderOptions withRank(int r, int w) {
    return new LoaderOptions(
        sampler,
        globalBatchRows,
        seed,
        epochs,
        r,
        w,
        tail,
        fields,
        label,
        threads,
        fetchesInFlight,
        prefetchBytes);
  }

  public LoaderOptions withTail(Tail t) {
    return new LoaderOptions(
        sampler,
        globalBatchRows,
        seed,
        epochs,
        rank,
        world,
        t,
        fields,
        label,
        threads,
        fetchesInFlight,
        prefetchBytes);
  }

  public LoaderOptions withFields(List<String> f) {
    return new LoaderOptions(
        sampler,
        globalBatchRows,
        seed,
        epochs,
        rank,
        world,
        tail,
        f,
        label,
        threads,
        fetchesInFlight,
        prefetchBytes);
  }

  public LoaderOptions withLabel(String l) {
    return new LoaderOptions(
        sampler,
        globalBatchRows,
        seed,
        epochs,
        rank,
        world,
        tail,
        fields,
        l,
        threads,
        fetchesInFlight,
        prefetchBytes);
  }

  public LoaderOptions withThreads(int t, int inFlight) {
    return new LoaderOptions(
        sampler,
        globalBatchRows,
        seed,
        epochs,
        rank,
        world,
        tail,
        fields,
        label,
        t,
        inFlight,
        prefetchBytes);
  }

  public LoaderOptions withPrefetchBytes(long b) {
    return new LoaderOptions(
        sampler,
        globalBatchRows,
        seed,
        epochs,
        rank,
        world,
        tail,
        fields,
        label,
        threads,
        fetchesInFlight,
        b);
  }

  /** Rows of one rank's batch, G/W. */
  public int rankBatchRows() {
    return globalBatchRows / world;
  }
}

package dev.riffle.loader.diversity;

import dev.riffle.format.io.Numbers;
import java.util.Locale;

/**
 * A diversity target the user states — π₂ ≤ ε, m_eff/m ≥ γ, or E[distinct blocks] ≥ d — from which
 * the planner derives the smallest fetch factor (or pool size) that meets it by the exact {@link
 * DiversityModel}, and checks it against a memory budget. If both cannot hold, it fails before
 * reading anything, with a message naming the numbers and what the budget would allow.
 *
 * <p>Memory model (per rank, as the pipeline admits fetches): a fetch of F/W rows of s bytes is
 * counted twice while in flight (the rows read and the batches cut from them exist together for a
 * moment) and once while its batches are handed out, so {@code inFlight} fetches need (2·inFlight +
 * 1)·(F/W)·s bytes.
 *
 * @param kind which quantity is bounded
 * @param target ε, γ or d
 */
public record DiversityContract(Kind kind, double target) {

  /** The bounded quantity. */
  public enum Kind {
    PI2_AT_MOST,
    MEFF_OVER_M_AT_LEAST,
    DISTINCT_BLOCKS_AT_LEAST
  }

  public DiversityContract {
    boolean ok =
        switch (kind) {
          case PI2_AT_MOST -> target > 0 && target <= 1;
          case MEFF_OVER_M_AT_LEAST -> target > 0 && target <= 1;
          case DISTINCT_BLOCKS_AT_LEAST -> target >= 1;
        };
    if (!ok) {
      throw new IllegalArgumentException(
          "diversity target " + describe(kind, target) + " is out of range");
    }
  }

  /** π₂ ≤ ε. */
  public static DiversityContract pi2AtMost(double epsilon) {
    return new DiversityContract(Kind.PI2_AT_MOST, epsilon);
  }

  /** m_eff/m ≥ γ. */
  public static DiversityContract meffOverMAtLeast(double gamma) {
    return new DiversityContract(Kind.MEFF_OVER_M_AT_LEAST, gamma);
  }

  /** E[distinct blocks per batch] ≥ d. */
  public static DiversityContract distinctBlocksAtLeast(double d) {
    return new DiversityContract(Kind.DISTINCT_BLOCKS_AT_LEAST, d);
  }

  /**
   * What the planner chose and what the model predicts for it.
   *
   * @param fetchBatches f (for a pool: the pool size in rows)
   * @param windowRows rows shuffled together, F = G·f (or R)
   * @param pi2 predicted π₂
   * @param meffOverM predicted m_eff/m
   * @param distinctBlocks predicted E[D] per global batch
   * @param memoryBytes bytes the choice needs per rank
   */
  public record Resolution(
      long fetchBatches,
      long windowRows,
      double pi2,
      double meffOverM,
      double distinctBlocks,
      long memoryBytes) {}

  /**
   * The smallest fetch factor that meets the target for block shuffling.
   *
   * @param blockRows b; with jittered blocks pass the largest per-epoch length, so the target holds
   *     every epoch
   * @param batchRows G, the global batch
   * @param world W (each rank holds F/W rows of a window)
   * @param bytesPerRow s, decoded bytes of one row of the projected columns
   * @param memoryBudget bytes the loader may hold per rank
   * @param inFlight fetches read ahead
   * @throws IllegalArgumentException if the target is unreachable, or needs more than the budget
   */
  public Resolution fetchFactor(
      int blockRows, int batchRows, int world, long bytesPerRow, long memoryBudget, int inFlight) {
    long f =
        switch (kind) {
          case PI2_AT_MOST -> DiversityModel.fetchFactorForPi2(blockRows, batchRows, target);
          case MEFF_OVER_M_AT_LEAST ->
              DiversityModel.fetchFactorForPi2(
                  blockRows, batchRows, DiversityModel.pi2ForMeff(batchRows, target));
          case DISTINCT_BLOCKS_AT_LEAST ->
              DiversityModel.fetchFactorForDistinct(blockRows, batchRows, target);
        };
    if (f < 0 && kind == Kind.DISTINCT_BLOCKS_AT_LEAST && target > batchRows) {
      throw new IllegalArgumentException(
          String.format(
              Locale.ROOT,
              "diversity target %s cannot be met: a batch of %,d rows holds at most %,d distinct"
                  + " blocks",
              describe(kind, target),
              batchRows,
              batchRows));
    }
    if (f < 0) {
      throw tooLarge("a window");
    }
    Resolution r = resolution(f, blockRows, batchRows, world, bytesPerRow, inFlight);
    if (r.memoryBytes() > memoryBudget) {
      long fMax = maxFetchFactor(batchRows, world, bytesPerRow, memoryBudget, inFlight);
      String allowed =
          fMax < 1
              ? "the budget does not hold even f = 1"
              : String.format(
                  Locale.ROOT,
                  "the budget allows f ≤ %,d, which gives π₂ = %.4g (m_eff/m = %.3f, E[D] = %.1f)",
                  fMax,
                  DiversityModel.pi2(blockRows, batchRows, fMax),
                  DiversityModel.meffOverM(
                      batchRows, DiversityModel.pi2(blockRows, batchRows, fMax)),
                  DiversityModel.expectedDistinctBlocks(blockRows, batchRows, fMax));
      throw new IllegalArgumentException(
          String.format(
              Locale.ROOT,
              "diversity target %s needs fetch factor f ≥ %,d (window F = %,d rows, b = %,d, m ="
                  + " %,d), i.e. %,d bytes per rank with %,d bytes per row, W = %d and %d fetches"
                  + " in flight, over the memory budget of %,d bytes; %s. Lower the block size,"
                  + " raise the budget or relax the target",
              describe(kind, target),
              f,
              r.windowRows(),
              blockRows,
              batchRows,
              r.memoryBytes(),
              bytesPerRow,
              world,
              inFlight,
              memoryBudget,
              allowed));
    }
    return r;
  }

  /**
   * The smallest rolling pool (rows) that meets a π₂ or m_eff/m target, checked against the budget
   * as if the pool were resident ((inFlight + 1)·R/W·s).
   *
   * @throws IllegalArgumentException if it is a distinct-blocks target, or over the budget
   */
  public Resolution poolRows(
      int blockRows, int batchRows, int world, long bytesPerRow, long memoryBudget, int inFlight) {
    double eps =
        switch (kind) {
          case PI2_AT_MOST -> target;
          case MEFF_OVER_M_AT_LEAST -> DiversityModel.pi2ForMeff(batchRows, target);
          case DISTINCT_BLOCKS_AT_LEAST ->
              throw new IllegalArgumentException(
                  "a distinct-blocks target applies to block shuffling; give the pool a π₂ or"
                      + " m_eff/m target");
        };
    long rows = DiversityModel.poolRowsForPi2(blockRows, eps);
    if (rows < 0) {
      throw tooLarge("a pool");
    }
    long pool = Math.max(batchRows, rows);
    double pi2 = DiversityModel.pi2Pool(blockRows, pool);
    long memory = times(times(inFlight + 1L, (pool + world - 1) / world), bytesPerRow);
    if (memory > memoryBudget) {
      throw new IllegalArgumentException(
          String.format(
              Locale.ROOT,
              "diversity target %s needs a pool of R ≥ %,d rows (b = %,d), i.e. %,d bytes per"
                  + " rank with %,d bytes per row, W = %d and %d fetches in flight, over the memory"
                  + " budget of %,d bytes",
              describe(kind, target),
              pool,
              blockRows,
              memory,
              bytesPerRow,
              world,
              inFlight,
              memoryBudget));
    }
    return new Resolution(
        pool, pool, pi2, DiversityModel.meffOverM(batchRows, pi2), Double.NaN, memory);
  }

  /** The largest f whose memory fits the budget (0 if none). */
  static long maxFetchFactor(
      int batchRows, int world, long bytesPerRow, long memoryBudget, int inFlight) {
    long perF =
        times(times(2L * inFlight + 1, Math.max(1, batchRows / world)), Math.max(1, bytesPerRow));
    return memoryBudget / perF;
  }

  private static Resolution resolution(
      long f, int blockRows, int batchRows, int world, long bytesPerRow, int inFlight) {
    long window = (long) batchRows * f;
    double pi2 = DiversityModel.pi2(blockRows, batchRows, f);
    long memory = times(times(2L * inFlight + 1, window / world), bytesPerRow);
    return new Resolution(
        f,
        window,
        pi2,
        DiversityModel.meffOverM(batchRows, pi2),
        DiversityModel.expectedDistinctBlocks(blockRows, batchRows, f),
        memory);
  }

  /** a·b, or Long.MAX_VALUE where that is more than a long counts: over any budget either way. */
  private static long times(long a, long b) {
    try {
      return Math.multiplyExact(a, b);
    } catch (ArithmeticException e) {
      return Long.MAX_VALUE;
    }
  }

  /** The target needs a window or pool beyond {@link DiversityModel#MAX_WINDOW_ROWS}. */
  private IllegalArgumentException tooLarge(String what) {
    return new IllegalArgumentException(
        String.format(
            Locale.ROOT,
            "diversity target %s cannot be met: it needs %s of more than %s rows (2^50)",
            describe(kind, target),
            what,
            Numbers.count(DiversityModel.MAX_WINDOW_ROWS)));
  }

  private static String describe(Kind kind, double target) {
    return switch (kind) {
      case PI2_AT_MOST -> "π₂ ≤ " + Numbers.text(target);
      case MEFF_OVER_M_AT_LEAST -> "m_eff/m ≥ " + Numbers.text(target);
      case DISTINCT_BLOCKS_AT_LEAST -> "E[distinct blocks] ≥ " + Numbers.text(target);
    };
  }

  @Override
  public String toString() {
    return describe(kind, target);
  }
}

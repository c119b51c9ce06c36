package dev.riffle.djl;

import dev.riffle.format.io.Numbers;

/**
 * What is done to the values of sparse (counts) features as they are copied into the NDArray, the
 * usual single-cell preprocessing: library-size normalisation (each row scaled so that its values
 * sum to {@code targetSum}; an all-zero row stays zero) and then {@code log1p}. Densified features
 * are normalised by the engine after the copy (vectorised, over the whole array); CSR values as
 * they are copied.
 *
 * @param scaleRows scale each row to {@code targetSum}
 * @param targetSum the row sum after scaling (1e4: "counts per 10k")
 * @param logTransform apply ln(1 + x) after scaling
 */
public record Normalization(boolean scaleRows, double targetSum, boolean logTransform) {
  public Normalization {
    if (scaleRows && !(targetSum > 0 && Double.isFinite(targetSum))) {
      throw new IllegalArgumentException(
          "the target row sum must be positive, not " + Numbers.text(targetSum));
    }
  }

  /** The values as stored. */
  public static Normalization none() {
    return new Normalization(false, 0, false);
  }

  /** ln(1 + x) of each value. */
  public static Normalization log1p() {
    return new Normalization(false, 0, true);
  }

  /** Each row scaled to sum to {@code targetSum}, then ln(1 + x): Scanpy's normalize + log1p. */
  public static Normalization librarySizeLog1p(double targetSum) {
    return new Normalization(true, targetSum, true);
  }

  /** Each row scaled to sum to {@code targetSum}. */
  public static Normalization librarySize(double targetSum) {
    return new Normalization(true, targetSum, false);
  }

  boolean isNone() {
    return !scaleRows && !logTransform;
  }

  /** The value {@code v} of a row whose values sum to {@code rowSum}. */
  float apply(double v, double rowSum) {
    double x = v;
    if (scaleRows) {
      x = rowSum == 0 ? 0 : v * (targetSum / rowSum);
    }
    if (!logTransform) {
      return (float) x;
    }
    // ln(1 + x) in double, then float: as exact as log1p once rounded to float for x above 1e-8
    // (1 + x loses under 1e-16 absolute), and Math.log is an intrinsic where Math.log1p is a
    // native call several times slower, on every nonzero of every row. Below, ln(1 + x) rounds to
    // x.
    return (float) (x < 1e-8 ? x : Math.log(1.0 + x));
  }
}

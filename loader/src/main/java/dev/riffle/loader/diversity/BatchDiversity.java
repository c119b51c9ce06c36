package dev.riffle.loader.diversity;

import java.util.Arrays;
import java.util.function.LongUnaryOperator;

/**
 * Realised diversity of delivered batches, accumulated batch by batch (research brief §7.1): π̂₂ =
 * Σ_β Σ_u c_u(c_u−1) / Σ_β m(m−1) over blocks u, the mean number of distinct blocks, and, when
 * labels are given, the mean plug-in label entropy (bits) and mean total-variation distance to the
 * global label distribution. Reuses its scratch arrays: no allocation per batch once warm. Not
 * thread-safe.
 */
public final class BatchDiversity {
  private final double[] globalLabels;
  private long[] scratch = new long[0];
  private int[] labelCounts;
  private long batches;
  private double samePairs;
  private double pairs;
  private double distinctSum;
  private double entropySum;
  private double tvSum;
  private long labelledBatches;

  /**
   * @param globalLabels the global label distribution p (sums to 1), or null without labels
   */
  public BatchDiversity(double[] globalLabels) {
    this.globalLabels = globalLabels == null ? null : globalLabels.clone();
    this.labelCounts = globalLabels == null ? null : new int[globalLabels.length];
  }

  /**
   * Adds one batch.
   *
   * @param positions view positions of the batch's rows
   * @param count how many of {@code positions} to use
   * @param blockOf the block of a position
   * @param labels label codes of the rows (parallel to positions), or null; negative = missing
   */
  public void add(long[] positions, int count, LongUnaryOperator blockOf, int[] labels) {
    if (scratch.length < count) {
      scratch = new long[count];
    }
    for (int i = 0; i < count; i++) {
      scratch[i] = blockOf.applyAsLong(positions[i]);
    }
    Arrays.sort(scratch, 0, count);
    long same = 0;
    int distinct = 0;
    for (int i = 0; i < count; ) {
      int j = i + 1;
      while (j < count && scratch[j] == scratch[i]) {
        j++;
      }
      long c = j - i;
      same += c * (c - 1);
      distinct++;
      i = j;
    }
    batches++;
    samePairs += same;
    pairs += (double) count * (count - 1);
    distinctSum += distinct;
    if (labels != null && globalLabels != null) {
      addLabels(labels, count);
    }
  }

  private void addLabels(int[] labels, int count) {
    Arrays.fill(labelCounts, 0);
    int n = 0;
    for (int i = 0; i < count; i++) {
      int l = labels[i];
      if (l >= 0 && l < labelCounts.length) {
        labelCounts[l]++;
        n++;
      }
    }
    if (n == 0) {
      return;
    }
    double h = 0;
    double tv = 0;
    for (int c = 0; c < labelCounts.length; c++) {
      double p = (double) labelCounts[c] / n;
      if (p > 0) {
        h -= p * Math.log(p);
      }
      tv += Math.abs(p - globalLabels[c]);
    }
    entropySum += h / Math.log(2);
    tvSum += tv / 2;
    labelledBatches++;
  }

  /** Batches added. */
  public long batches() {
    return batches;
  }

  /** π̂₂, the fraction of ordered row pairs of a batch that share a block (0 if no pairs). */
  public double pi2() {
    return pairs == 0 ? 0 : samePairs / pairs;
  }

  /** m/(1+(m−1)π̂₂)/m for batches of {@code batchRows}. */
  public double meffOverM(int batchRows) {
    return DiversityModel.meffOverM(batchRows, pi2());
  }

  /** Mean distinct blocks per batch. */
  public double distinctBlocksMean() {
    return batches == 0 ? 0 : distinctSum / batches;
  }

  /** Mean plug-in label entropy in bits, NaN without labels. */
  public double labelEntropyMean() {
    return labelledBatches == 0 ? Double.NaN : entropySum / labelledBatches;
  }

  /** Mean total-variation distance to the global label distribution, NaN without labels. */
  public double tvMean() {
    return labelledBatches == 0 ? Double.NaN : tvSum / labelledBatches;
  }

  /** Entropy in bits of the global label distribution, NaN without labels. */
  public double globalEntropy() {
    if (globalLabels == null) {
      return Double.NaN;
    }
    double h = 0;
    for (double p : globalLabels) {
      if (p > 0) {
        h -= p * Math.log(p);
      }
    }
    return h / Math.log(2);
  }
}

package dev.riffle.loader.plan;

/**
 * Walker's alias table (Vose's construction): draws index k with probability weight[k]/Σweight in
 * O(1) from one hash, after O(K) set-up.
 */
final class Alias {
  private final double[] accept;
  private final int[] alias;

  /**
   * @param weight non-negative, finite, with a positive sum
   */
  Alias(double[] weight) {
    int k = weight.length;
    double total = 0;
    int heaviest = 0;
    for (int i = 0; i < k; i++) {
      total += weight[i];
      if (weight[i] > weight[heaviest]) {
        heaviest = i;
      }
    }
    accept = new double[k];
    alias = new int[k];
    int[] small = new int[k];
    int[] large = new int[k];
    int ns = 0;
    int nl = 0;
    double[] scaled = new double[k];
    for (int i = 0; i < k; i++) {
      scaled[i] = weight[i] * k / total;
      if (scaled[i] < 1) {
        small[ns++] = i;
      } else {
        large[nl++] = i;
      }
    }
    while (ns > 0 && nl > 0) {
      int s = small[--ns];
      int l = large[--nl];
      accept[s] = scaled[s];
      alias[s] = l;
      scaled[l] = scaled[l] + scaled[s] - 1;
      if (scaled[l] < 1) {
        small[ns++] = l;
      } else {
        large[nl++] = l;
      }
    }
    // What is left has scaled weight 1 up to rounding.
    while (nl > 0) {
      int l = large[--nl];
      accept[l] = 1;
      alias[l] = l;
    }
    while (ns > 0) {
      int s = small[--ns];
      // Rounding left a column just under 1: fill it with itself, or, for a zero weight (which
      // must never be drawn), with the heaviest index.
      accept[s] = weight[s] == 0 ? 0 : 1;
      alias[s] = weight[s] == 0 ? heaviest : s;
    }
  }

  /** The index drawn by {@code hash}. */
  int draw(long hash) {
    int i = (int) Mix.below(hash, accept.length);
    return Mix.unit(Mix.mix(hash ^ Mix.GOLDEN)) < accept[i] ? i : alias[i];
  }
}

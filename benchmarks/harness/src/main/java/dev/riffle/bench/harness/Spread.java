package dev.riffle.bench.harness;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/**
 * Repeated figures of one measurement: on a shared machine a single figure says little, so runs
 * report the median with every round beside it.
 */
public final class Spread {
  private Spread() {}

  /** The median (the upper one of an even count). */
  public static double median(List<Double> v) {
    List<Double> s = new ArrayList<>(v);
    Collections.sort(s);
    return s.get(s.size() / 2);
  }

  /** Every figure, two decimals below 10, none above. */
  public static List<String> rounds(List<Double> v) {
    return v.stream().map(x -> String.format(Locale.ROOT, x < 10 ? "%.2f" : "%.0f", x)).toList();
  }

  /** {@code b[i] / a[i]} per round. */
  public static List<Double> ratios(List<Double> a, List<Double> b) {
    List<Double> r = new ArrayList<>();
    for (int i = 0; i < a.size(); i++) {
      r.add(b.get(i) / a.get(i));
    }
    return r;
  }
}

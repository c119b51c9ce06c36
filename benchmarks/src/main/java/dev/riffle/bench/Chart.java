package dev.riffle.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javax.imageio.ImageIO;

/** A grouped bar chart (log scale) of take rows/s per type per format, drawn with java.awt. */
final class Chart {
  private static final Color[] COLORS = {
    new Color(0x1f77b4),
    new Color(0x17becf),
    new Color(0x2ca02c),
    new Color(0xd62728),
    new Color(0xff7f0e),
    new Color(0x9467bd),
    new Color(0x8c564b)
  };

  private Chart() {}

  static void write(Compare c, Path file) throws IOException {
    System.setProperty("java.awt.headless", "true");
    List<String[]> panels = new ArrayList<>();
    for (String cache : c.caches) {
      int conc = c.concurrency[c.concurrency.length - 1];
      if (Report.find(c, "take", c.types.get(0), "riffle", cache, conc) != null) {
        panels.add(new String[] {cache, Integer.toString(conc)});
      }
    }
    if (panels.isEmpty()) {
      return;
    }
    int pw = 1100;
    int ph = 420;
    BufferedImage img = new BufferedImage(pw, ph * panels.size(), BufferedImage.TYPE_INT_RGB);
    Graphics2D g = img.createGraphics();
    g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
    g.setColor(Color.WHITE);
    g.fillRect(0, 0, img.getWidth(), img.getHeight());
    for (int p = 0; p < panels.size(); p++) {
      panel(g, c, panels.get(p)[0], Integer.parseInt(panels.get(p)[1]), 0, p * ph, pw, ph);
    }
    g.dispose();
    ImageIO.write(img, "png", file.toFile());
  }

  private static void panel(
      Graphics2D g, Compare c, String cache, int conc, int x0, int y0, int w, int h) {
    List<String> fmts = c.formats;
    double max = 1;
    double min = Double.MAX_VALUE;
    for (String t : c.types) {
      for (String f : fmts) {
        double v = Report.rate(c, "take", t, f, cache, conc);
        if (!Double.isNaN(v) && v > 0) {
          max = Math.max(max, v);
          min = Math.min(min, v);
        }
      }
    }
    double lo = Math.pow(10, Math.floor(Math.log10(Math.max(1e-3, min))));
    double hi = Math.pow(10, Math.ceil(Math.log10(max)));
    int left = x0 + 70;
    int right = x0 + w - 170;
    int top = y0 + 40;
    int bottom = y0 + h - 50;
    g.setColor(Color.BLACK);
    g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 15));
    g.drawString(
        "Random take of "
            + c.take
            + " rows: rows/s (log), "
            + cache
            + " cache, concurrency "
            + conc,
        left,
        y0 + 22);
    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
    g.setStroke(new BasicStroke(1));
    for (double d = lo; d <= hi * 1.0001; d *= 10) {
      int y = yOf(d, lo, hi, top, bottom);
      g.setColor(new Color(0xdddddd));
      g.drawLine(left, y, right, y);
      g.setColor(Color.DARK_GRAY);
      g.drawString(label(d), x0 + 8, y + 4);
    }
    int groups = c.types.size();
    double gw = (right - left) / (double) groups;
    double bw = (gw * 0.8) / fmts.size();
    for (int t = 0; t < groups; t++) {
      String type = c.types.get(t);
      for (int f = 0; f < fmts.size(); f++) {
        double v = Report.rate(c, "take", type, fmts.get(f), cache, conc);
        if (Double.isNaN(v) || v <= 0) {
          continue;
        }
        int x = (int) (left + t * gw + gw * 0.1 + f * bw);
        int y = yOf(v, lo, hi, top, bottom);
        g.setColor(COLORS[f % COLORS.length]);
        g.fillRect(x, y, Math.max(1, (int) bw - 1), bottom - y);
      }
      g.setColor(Color.BLACK);
      g.drawString(type, (int) (left + t * gw + gw * 0.2), bottom + 16);
    }
    g.drawLine(left, bottom, right, bottom);
    g.drawLine(left, top, left, bottom);
    for (int f = 0; f < fmts.size(); f++) {
      g.setColor(COLORS[f % COLORS.length]);
      g.fillRect(right + 15, top + 18 * f, 12, 12);
      g.setColor(Color.BLACK);
      g.drawString(fmts.get(f), right + 32, top + 18 * f + 11);
    }
  }

  private static int yOf(double v, double lo, double hi, int top, int bottom) {
    double frac = (Math.log10(v) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo));
    return (int) (bottom - frac * (bottom - top));
  }

  private static String label(double d) {
    if (d >= 1e6) {
      return String.format(Locale.ROOT, "%.0fM", d / 1e6);
    }
    if (d >= 1e3) {
      return String.format(Locale.ROOT, "%.0fK", d / 1e3);
    }
    return String.format(Locale.ROOT, "%.0f", d);
  }
}

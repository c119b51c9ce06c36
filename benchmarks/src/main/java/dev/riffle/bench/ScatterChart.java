package dev.riffle.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import javax.imageio.ImageIO;

/**
 * Samples/s (log scale) against m_eff/m, one labelled point per run, drawn with java.awt. The
 * benchmarks' {@code Chart} is a grouped bar chart of take rates, a different shape of data.
 */
final class ScatterChart {
  private ScatterChart() {}

  record Point(String label, double x, double y, Color color) {}

  static void write(List<Point> points, String title, Path file) throws IOException {
    System.setProperty("java.awt.headless", "true");
    int w = 1000;
    int h = 620;
    int left = 90;
    int right = 40;
    int top = 50;
    int bottom = 70;
    BufferedImage img = new BufferedImage(w, h, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = img.createGraphics();
    g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
    g.setColor(Color.WHITE);
    g.fillRect(0, 0, w, h);
    double lo = Double.MAX_VALUE;
    double hi = 0;
    for (Point p : points) {
      lo = Math.min(lo, p.y());
      hi = Math.max(hi, p.y());
    }
    if (points.isEmpty() || hi <= 0) {
      lo = 1;
      hi = 10;
    }
    lo = Math.pow(10, Math.floor(Math.log10(Math.max(1, lo))));
    hi = Math.pow(10, Math.ceil(Math.log10(Math.max(hi, lo * 10))));
    g.setColor(Color.BLACK);
    g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 15));
    g.drawString(title, left, 30);
    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
    g.drawRect(left, top, w - left - right, h - top - bottom);
    for (int i = 0; i <= 10; i++) {
      double x = i / 10.0;
      int px = left + (int) Math.round(x * (w - left - right));
      g.setColor(new Color(230, 230, 230));
      g.drawLine(px, top + 1, px, h - bottom - 1);
      g.setColor(Color.BLACK);
      g.drawString(String.format(Locale.ROOT, "%.1f", x), px - 8, h - bottom + 18);
    }
    for (double v = lo; v <= hi * 1.0001; v *= 10) {
      int py = yOf(v, lo, hi, top, h - bottom);
      g.setColor(new Color(230, 230, 230));
      g.drawLine(left + 1, py, w - right - 1, py);
      g.setColor(Color.BLACK);
      g.drawString(String.format(Locale.ROOT, "%,.0f", v), 8, py + 4);
    }
    g.drawString("m_eff / m (diversity: 1 = as diverse as true random)", w / 2 - 160, h - 25);
    g.drawString("samples/s (log)", 8, top - 12);
    g.setStroke(new BasicStroke(1.5f));
    for (Point p : points) {
      int px = left + (int) Math.round(Math.max(0, Math.min(1, p.x())) * (w - left - right));
      int py = yOf(Math.max(lo, p.y()), lo, hi, top, h - bottom);
      g.setColor(p.color());
      g.fillOval(px - 5, py - 5, 10, 10);
      g.setColor(Color.DARK_GRAY);
      g.drawString(p.label(), Math.min(px + 8, w - right - 150), py - 6);
    }
    g.dispose();
    ImageIO.write(img, "png", file.toFile());
  }

  private static int yOf(double v, double lo, double hi, int top, int bottom) {
    double f = (Math.log10(v) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo));
    return bottom - (int) Math.round(f * (bottom - top));
  }
}

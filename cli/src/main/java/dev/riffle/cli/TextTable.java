package dev.riffle.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/**
 * A plain-text table with columns padded to their widest cell; numeric columns are right-aligned so
 * that their digits line up.
 */
final class TextTable {
  private final String[] header;
  private final boolean[] rightAligned;
  private final List<String[]> rows = new ArrayList<>();

  /** Column titles; a title starting with {@code >} is right-aligned (the marker is dropped). */
  TextTable(String... titles) {
    header = new String[titles.length];
    rightAligned = new boolean[titles.length];
    for (int c = 0; c < titles.length; c++) {
      rightAligned[c] = titles[c].startsWith(">");
      header[c] = rightAligned[c] ? titles[c].substring(1) : titles[c];
    }
  }

  void add(Object... cells) {
    if (cells.length != header.length) {
      throw new IllegalArgumentException(cells.length + " cells for " + header.length + " columns");
    }
    String[] row = new String[cells.length];
    for (int c = 0; c < cells.length; c++) {
      row[c] = String.valueOf(cells[c]);
    }
    rows.add(row);
  }

  void print(PrintWriter out, String indent) {
    int[] width = new int[header.length];
    for (int c = 0; c < header.length; c++) {
      width[c] = header[c].length();
      for (String[] row : rows) {
        width[c] = Math.max(width[c], row[c].length());
      }
    }
    printRow(out, indent, header, width);
    for (String[] row : rows) {
      printRow(out, indent, row, width);
    }
  }

  private void printRow(PrintWriter out, String indent, String[] cells, int[] width) {
    StringBuilder line = new StringBuilder(indent);
    for (int c = 0; c < cells.length; c++) {
      if (c > 0) {
        line.append("  ");
      }
      String pad = " ".repeat(width[c] - cells[c].length());
      line.append(rightAligned[c] ? pad + cells[c] : cells[c] + pad);
    }
    out.println(line.toString().stripTrailing());
  }
}

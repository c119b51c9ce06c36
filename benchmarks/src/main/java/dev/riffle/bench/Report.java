package dev.riffle.bench;

import dev.riffle.bench.harness.Reports;
import dev.riffle.bench.harness.TakeHarness;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The Markdown report of a {@link Compare} run. */
final class Report {
  private Report() {}

  static Map<String, Object> find(
      Compare c, String op, String type, String format, String cache, int conc) {
    for (Map<String, Object> r : c.results) {
      if (r.get("op").equals(op)
          && r.get("type").equals(type)
          && r.get("format").equals(format)
          && r.get("cache").equals(cache)
          && ((Integer) r.get("concurrency")) == conc) {
        return r;
      }
    }
    return null;
  }

  static double rate(Compare c, String op, String type, String format, String cache, int conc) {
    Map<String, Object> r = find(c, op, type, format, cache, conc);
    return r == null ? Double.NaN : (Double) r.get("rows_per_s");
  }

  static String num(double v) {
    if (Double.isNaN(v)) {
      return "–";
    }
    if (v >= 100) {
      return String.format(Locale.ROOT, "%,.0f", v);
    }
    return String.format(Locale.ROOT, "%.2f", v);
  }

  static String ratio(double a, double b) {
    if (Double.isNaN(a) || Double.isNaN(b) || b == 0) {
      return "–";
    }
    return String.format(Locale.ROOT, "%.2f×", a / b);
  }

  static String markdown(Compare c, ZonedDateTime started) {
    StringBuilder s = new StringBuilder();
    Reports.header(
        s,
        "Riffle vs Parquet-MR vs Arrow IPC: random takes and scans (lance8, sparse, vectors)",
        started,
        "; disk read_ahead_kb " + Reports.readAhead(),
        c.commandLine());
    s.append("Rows per type: ");
    c.rowCounts.forEach(
        (t, n) ->
            s.append(t).append(' ').append(String.format(Locale.ROOT, "%,d", n)).append("; "));
    s.append("takes of ")
        .append(c.take)
        .append(" uniformly random rows (with replacement), ")
        .append(c.seconds)
        .append(" s of takes per measurement; concurrency C = C calling threads, each")
        .append(" with its own reader handle (Riffle: one shared FileReader, its default engine:")
        .append(" up to 16 reads in flight per take);")
        .append(" `riffle-engine` is ONE calling thread whose takes keep C reads in flight through")
        .append(" the I/O engine; `riffle-direct` reads with O_DIRECT. Cold = rounds of `sync;")
        .append(" echo 3 > /proc/sys/vm/drop_caches` (after opening: metadata and page indexes")
        .append(" stay loaded, as the Lance paper's warm search cache) then ONE take per thread,")
        .append(" only the takes timed, until the seconds above or ")
        .append(TakeHarness.COLD_ROUNDS)
        .append(" rounds; warm = file read once first, then takes for the seconds above.\n\n");
    s.append("Counters: `reads/row`, `sectors/row`, `bytes/row` are Riffle's own (ReadStats);")
        .append(
            " `syscr/row` and `disk B/row` come from /proc/self/io (read syscalls; `read_bytes`,")
        .append(
            " bytes the process made the block layer read, readahead included) for every format.\n\n");
    s.append("Parquet: parquet-mr 1.18.1; `parquet` = ParquetWriter defaults (1 MiB pages,")
        .append(
            " dictionary, uncompressed, 128 MiB row groups, page index); `parquet-tuned` = 8 KiB")
        .append(
            " pages (size checked every row), no dictionary, no compression, no statistics, page")
        .append(
            " index. Both are read through the page index (`readFilteredRowGroup` with single-row")
        .append(" `RowRanges`) and the stock example Group materializer. Arrow IPC: Arrow Java 19")
        .append(" `ArrowFileReader`, 256 KiB record batches; a take loads every batch it touches.")
        .append(" Lance: not in this run (see benchmarks/README.md, `lance` module).\n\n");

    // fio
    s.append("## fio limits (O_DIRECT)\n\n");
    s.append("| test | result |\n|---|---|\n");
    for (int conc : c.concurrency) {
      Object v = c.fioResults.get("randread_4k_iops_c" + conc);
      s.append("| 4 KiB random read, psync, ")
          .append(conc)
          .append(" threads | ")
          .append(v == null ? "–" : num((Double) v) + " IOPS")
          .append(" |\n");
    }
    Object seq = c.fioResults.get("seqread_1m_bytes_per_s");
    s.append("| 1 MiB sequential read, libaio QD16 | ")
        .append(seq == null ? "–" : num((Double) seq / 1e6) + " MB/s")
        .append(" |\n\n");

    List<String> fmts = c.formats;
    for (String cache : c.caches) {
      for (int conc : c.concurrency) {
        if (find(c, "take", c.types.get(0), "riffle", cache, conc) == null) {
          continue;
        }
        s.append("## Random take, ")
            .append(cache)
            .append(", concurrency ")
            .append(conc)
            .append(" (rows/s)\n\n");
        s.append("| type |");
        for (String f : fmts) {
          s.append(' ').append(f).append(" |");
        }
        s.append(
            " riffle / parquet | riffle / parquet-tuned | riffle / arrow-ipc | riffle rows/s / fio 4K IOPS |\n|---|");
        for (int k = 0; k < fmts.size() + 4; k++) {
          s.append("---|");
        }
        s.append('\n');
        Object fioIops = c.fioResults.get("randread_4k_iops_c" + conc);
        for (String t : c.types) {
          s.append("| ").append(t).append(" |");
          for (String f : fmts) {
            s.append(' ').append(num(rate(c, "take", t, f, cache, conc))).append(" |");
          }
          double r = rate(c, "take", t, "riffle", cache, conc);
          s.append(' ').append(ratio(r, rate(c, "take", t, "parquet", cache, conc))).append(" |");
          s.append(' ')
              .append(ratio(r, rate(c, "take", t, "parquet-tuned", cache, conc)))
              .append(" |");
          s.append(' ').append(ratio(r, rate(c, "take", t, "arrow-ipc", cache, conc))).append(" |");
          s.append(' ').append(fioIops == null ? "–" : ratio(r, (Double) fioIops)).append(" |\n");
        }
        s.append('\n');
        s.append(
            "Counters (per row returned):\n\n| type | format | reads | sectors | bytes | syscr | disk B |\n|---|---|---|---|---|---|---|\n");
        for (String t : c.types) {
          for (String f : fmts) {
            Map<String, Object> r = find(c, "take", t, f, cache, conc);
            if (r == null) {
              continue;
            }
            s.append("| ")
                .append(t)
                .append(" | ")
                .append(f)
                .append(" | ")
                .append(r.containsKey("reads_per_row") ? num((Double) r.get("reads_per_row")) : "–")
                .append(" | ")
                .append(
                    r.containsKey("sectors_per_row") ? num((Double) r.get("sectors_per_row")) : "–")
                .append(" | ")
                .append(r.containsKey("bytes_per_row") ? num((Double) r.get("bytes_per_row")) : "–")
                .append(" | ")
                .append(num((Double) r.get("syscr_per_row")))
                .append(" | ")
                .append(num((Double) r.get("disk_bytes_per_row")))
                .append(" |\n");
          }
        }
        s.append('\n');
      }
    }
    for (String cache : c.caches) {
      if (find(c, "scan", c.types.get(0), "riffle", cache, 1) == null) {
        continue;
      }
      s.append("## Full scan, ").append(cache).append(" (rows/s, one thread)\n\n");
      s.append(
          "| type | riffle | parquet | parquet-tuned | arrow-ipc | riffle / parquet | riffle MB/s | riffle disk B/row |\n|---|---|---|---|---|---|---|---|\n");
      for (String t : c.types) {
        double r = rate(c, "scan", t, "riffle", cache, 1);
        Map<String, Object> rr = find(c, "scan", t, "riffle", cache, 1);
        s.append("| ")
            .append(t)
            .append(" | ")
            .append(num(r))
            .append(" | ")
            .append(num(rate(c, "scan", t, "parquet", cache, 1)))
            .append(" | ")
            .append(num(rate(c, "scan", t, "parquet-tuned", cache, 1)))
            .append(" | ")
            .append(num(rate(c, "scan", t, "arrow-ipc", cache, 1)))
            .append(" | ")
            .append(ratio(r, rate(c, "scan", t, "parquet", cache, 1)))
            .append(" | ")
            .append(rr == null ? "–" : num((Double) rr.get("mb_per_s")))
            .append(" | ")
            .append(rr == null ? "–" : num((Double) rr.get("disk_bytes_per_row")))
            .append(" |\n");
      }
      List<String> multi = new ArrayList<>();
      for (String t : c.types) {
        if (find(c, "scan_column", t, "riffle", cache, 1) != null) {
          multi.add(t);
        }
      }
      if (!multi.isEmpty()) {
        s.append('\n');
        s.append("One column of a multi-column file (its label), ")
            .append(cache)
            .append(", rows/s (Arrow IPC reads whole record batches):\n\n");
        s.append(
            "| type | column | riffle | parquet | parquet-tuned | arrow-ipc | riffle / parquet | riffle disk B/row |\n|---|---|---|---|---|---|---|---|\n");
        for (String t : multi) {
          Map<String, Object> rr = find(c, "scan_column", t, "riffle", cache, 1);
          double r = rate(c, "scan_column", t, "riffle", cache, 1);
          s.append("| ")
              .append(t)
              .append(" | ")
              .append(rr.get("column"))
              .append(" | ")
              .append(num(r))
              .append(" | ")
              .append(num(rate(c, "scan_column", t, "parquet", cache, 1)))
              .append(" | ")
              .append(num(rate(c, "scan_column", t, "parquet-tuned", cache, 1)))
              .append(" | ")
              .append(num(rate(c, "scan_column", t, "arrow-ipc", cache, 1)))
              .append(" | ")
              .append(ratio(r, rate(c, "scan_column", t, "parquet", cache, 1)))
              .append(" | ")
              .append(num((Double) rr.get("disk_bytes_per_row")))
              .append(" |\n");
        }
      }
      // All columns: the sum of the per-type scan times over the sum of rows is not one
      // multi-column scan; report seconds instead.
      s.append('\n');
      s.append("All types (the files above scanned one after another, every column), seconds: ");
      for (String f : List.of("riffle", "parquet", "parquet-tuned", "arrow-ipc")) {
        double sec = 0;
        boolean all = true;
        for (String t : c.types) {
          Map<String, Object> r = find(c, "scan", t, f, cache, 1);
          if (r == null) {
            all = false;
          } else {
            sec += (Double) r.get("seconds");
          }
        }
        s.append(f)
            .append(' ')
            .append(all ? String.format(Locale.ROOT, "%.2f", sec) : "–")
            .append("; ");
      }
      s.append("\n\n");
    }
    s.append(
        "## File sizes (bytes)\n\n| type | riffle | parquet | parquet-tuned | parquet-zstd | arrow-ipc | riffle / parquet-zstd |\n|---|---|---|---|---|---|---|\n");
    c.sizes.forEach(
        (t, m) -> {
          s.append("| ").append(t).append(" |");
          for (String f :
              List.of("riffle", "parquet", "parquet-tuned", "parquet-zstd", "arrow-ipc")) {
            Long v = m.get(f);
            s.append(' ')
                .append(v == null ? "–" : String.format(Locale.ROOT, "%,d", v))
                .append(" |");
          }
          s.append(' ').append(ratio(m.get("riffle"), m.get("parquet-zstd"))).append(" |\n");
        });
    s.append('\n');
    return s.toString();
  }
}

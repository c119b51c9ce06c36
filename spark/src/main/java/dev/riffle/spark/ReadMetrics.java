package dev.riffle.spark;

import dev.riffle.format.read.ReadStats;
import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.metric.CustomSumMetric;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;

/**
 * The scan's SQL metrics (Spark UI, {@code BatchScanExec}'s metrics): what the tasks' file readers
 * read of column pages, from their {@link ReadStats}. They show what column pruning saves, since
 * the bytes of columns a query does not select are never read. Spark makes the driver-side metrics
 * by name of class, so each is a public class with a public no-argument constructor.
 */
public final class ReadMetrics {
  private ReadMetrics() {}

  static final String BYTES_READ = "riffleBytesRead";
  static final String READS = "riffleReads";
  static final String SECTORS = "riffleSectors";
  static final String ROWS_SKIPPED = "riffleRowsSkipped";

  static CustomMetric[] supported() {
    return new CustomMetric[] {new BytesRead(), new Reads(), new Sectors(), new RowsSkipped()};
  }

  /** The task's values so far. */
  static CustomTaskMetric[] of(ReadStats stats, long rowsSkipped) {
    return new CustomTaskMetric[] {
      task(BYTES_READ, stats.bytesRead()),
      task(READS, stats.reads()),
      task(SECTORS, stats.sectors()),
      task(ROWS_SKIPPED, rowsSkipped)
    };
  }

  private static CustomTaskMetric task(String name, long value) {
    return new CustomTaskMetric() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public long value() {
        return value;
      }
    };
  }

  /** Bytes of column pages read from data files (file heads and footers not counted). */
  public static final class BytesRead extends CustomSumMetric {
    @Override
    public String name() {
      return BYTES_READ;
    }

    @Override
    public String description() {
      return "riffle page bytes read";
    }
  }

  /** Read calls made for column pages (each one request on an object store). */
  public static final class Reads extends CustomSumMetric {
    @Override
    public String name() {
      return READS;
    }

    @Override
    public String description() {
      return "riffle page reads";
    }
  }

  /** Distinct 4 KiB sectors the page reads covered (what a take of a few rows costs). */
  public static final class Sectors extends CustomSumMetric {
    @Override
    public String name() {
      return SECTORS;
    }

    @Override
    public String description() {
      return "riffle sectors read";
    }
  }

  /** Rows of the partitions that page statistics excluded for the pushed filters, never read. */
  public static final class RowsSkipped extends CustomSumMetric {
    @Override
    public String name() {
      return ROWS_SKIPPED;
    }

    @Override
    public String description() {
      return "riffle rows skipped by page statistics";
    }
  }
}

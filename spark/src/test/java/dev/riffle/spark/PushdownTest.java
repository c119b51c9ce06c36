package dev.riffle.spark;

import static org.assertj.core.api.Assertions.assertThat;

import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.Manifest;
import dev.riffle.dataset.storage.LocalStorage;
import dev.riffle.dataset.storage.Storage;
import dev.riffle.format.read.FileReader;
import dev.riffle.format.read.PageFilter;
import dev.riffle.format.read.PageInfo;
import dev.riffle.format.read.ReadStats;
import dev.riffle.format.read.RowRanges;
import dev.riffle.format.read.ScanCursor;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec;
import org.apache.spark.sql.functions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What Spark hands down reaches the file reader, as the scan's counters show: row-range partitions
 * are sequential range scans (each page read once, and a page a partition boundary cuts once more),
 * filters skip the pages their statistics exclude, {@code _row_id} lookups read a few sectors, and
 * {@code count(*)} reads nothing. Results are checked against Spark's Parquet source on a copy.
 */
class PushdownTest {
  static final int ROWS = 60_000;
  static final int PLATES = 14;

  static SparkSession spark;

  @TempDir static Path dir;
  static Path ds;
  static Path pq;

  /**
   * Two files of 30,000 rows, in id order, plate written in contiguous runs (as atlases are
   * concatenated plate by plate), small pages so that each column has many.
   */
  @BeforeAll
  static void write() {
    spark = LocalSpark.session();
    ds = dir.resolve("ds");
    pq = dir.resolve("pq");
    org.apache.spark.sql.Dataset<Row> df =
        spark
            .range(0, ROWS, 1, 2)
            .selectExpr(
                "id",
                "cast(id * " + PLATES + " / " + ROWS + " as int) as plate",
                "cast(pmod(hash(id), 4800) + 200 as int) as n_genes",
                "pmod(hash(id, 2), 1000000) / 1000000.0d as score",
                "concat('type', cast(pmod(hash(id, 3), 20) as string)) as cell_type",
                "date_add(date'2026-01-01', cast(id * 30 / " + ROWS + " as int)) as day",
                "case when id % 7 = 0 then null else id % 1000 end as maybe");
    df.write().format("riffle").option("pageBytes", 4096).save(ds.toString());
    df.write().parquet(pq.toString());
  }

  static org.apache.spark.sql.Dataset<Row> riffle() {
    return spark.read().format("riffle").load(ds.toString());
  }

  /** The values of the named counter, summed over the tasks of the query's one riffle scan. */
  static long metric(org.apache.spark.sql.Dataset<Row> df, String name) {
    List<BatchScanExec> scans = new ArrayList<>();
    ColumnPruningTest.scans(df.queryExecution().executedPlan(), scans);
    assertThat(scans).hasSize(1);
    return scans.get(0).metrics().apply(name).value();
  }

  static String scanDescription(org.apache.spark.sql.Dataset<Row> df) {
    List<BatchScanExec> scans = new ArrayList<>();
    ColumnPruningTest.scans(df.queryExecution().executedPlan(), scans);
    return scans.get(0).scan().description();
  }

  /** What the format's own reader reads of {@code fields} over the rows a filter leaves. */
  static ReadStats formatScan(List<String> fields, PageFilter filter) throws Exception {
    ReadStats stats = new ReadStats();
    try (Storage storage = new LocalStorage(ds);
        RootAllocator allocator = new RootAllocator()) {
      Manifest m = Dataset.readManifest(storage, 1);
      for (Manifest.DataFile f : m.files()) {
        try (FileReader r = FileReader.open(storage.open(f.path()), true, allocator, stats)) {
          RowRanges rows = filter == null ? RowRanges.all(r.rowCount()) : r.candidateRows(filter);
          if (rows.isEmpty()) {
            continue; // a file the statistics exclude: no page of it is read
          }
          try (ScanCursor c = r.scan(fields, 4096, rows)) {
            for (VectorSchemaRoot b = c.next(); b != null; b = c.next()) {
              b.close();
            }
          }
        }
      }
    }
    return stats;
  }

  /** The bytes of the pages of {@code fields} that hold a row the filter cannot exclude. */
  static long candidatePageBytes(List<String> fields, PageFilter filter) throws Exception {
    long bytes = 0;
    try (Storage storage = new LocalStorage(ds);
        RootAllocator allocator = new RootAllocator()) {
      for (Manifest.DataFile f : Dataset.readManifest(storage, 1).files()) {
        try (FileReader r =
            FileReader.open(storage.open(f.path()), true, allocator, new ReadStats())) {
          RowRanges rows = r.candidateRows(filter);
          for (String field : fields) {
            for (PageInfo p : r.pages(r.schema().columnOf(r.schema().fieldIndex(field)))) {
              if (!rows.intersect(RowRanges.of(p.firstRow(), p.firstRow() + p.rowCount()))
                  .isEmpty()) {
                bytes += p.byteLength();
              }
            }
          }
        }
      }
    }
    return bytes;
  }

  static final List<String> LOOKUP_FIELDS =
      List.of("id", "plate", "n_genes", "score", "cell_type", "day", "maybe");

  /** What the format's takes of the given rows of each file read. */
  static ReadStats formatTake(long[][] rowsPerFile, List<String> fields) throws Exception {
    ReadStats stats = new ReadStats();
    try (Storage storage = new LocalStorage(ds);
        RootAllocator allocator = new RootAllocator()) {
      List<Manifest.DataFile> files = Dataset.readManifest(storage, 1).files();
      for (int i = 0; i < files.size(); i++) {
        try (FileReader r =
                FileReader.open(storage.open(files.get(i).path()), true, allocator, stats);
            VectorSchemaRoot b = r.take(rowsPerFile[i], fields)) {
          assertThat(b.getRowCount()).isEqualTo(rowsPerFile[i].length);
        }
      }
    }
    return stats;
  }

  @Test
  void rowRangePartitionsAreSequentialScans() throws Exception {
    int perPartition = 7001;
    org.apache.spark.sql.Dataset<Row> q =
        spark
            .read()
            .format("riffle")
            .option("rowsPerPartition", perPartition)
            .load(ds.toString())
            .agg(functions.sum("score"));
    assertThat(q.collectAsList().get(0).getDouble(0))
        .isEqualTo(
            spark.read().parquet(pq.toString()).agg(functions.sum("score")).first().getDouble(0),
            org.assertj.core.data.Offset.offset(1e-6));
    // Each partition reads the pages of score that hold its rows, whole, once: the file's pages,
    // and the page each partition boundary cuts a second time. No take, no sector reads.
    long pages = 0;
    long pageBytes = 0;
    long expectedBytes = 0;
    long expectedPages = 0;
    ReadStats scans = new ReadStats();
    try (Storage storage = new LocalStorage(ds);
        RootAllocator allocator = new RootAllocator()) {
      for (Manifest.DataFile f : Dataset.readManifest(storage, 1).files()) {
        try (FileReader r =
            FileReader.open(storage.open(f.path()), true, allocator, new ReadStats())) {
          int column = r.schema().columnOf(r.schema().fieldIndex("score"));
          List<PageInfo> info = r.pages(column);
          pages += info.size();
          for (PageInfo p : info) {
            pageBytes += p.byteLength();
          }
          for (long start = 0; start < r.rowCount(); start += perPartition) {
            long end = Math.min(r.rowCount(), start + perPartition);
            // Each partition is a task with a reader of its own.
            try (FileReader own = FileReader.open(storage.open(f.path()), true, allocator, scans);
                ScanCursor c = own.scan(List.of("score"), 4096, start, end)) {
              for (VectorSchemaRoot b = c.next(); b != null; b = c.next()) {
                b.close();
              }
            }
            for (PageInfo p : info) {
              if (p.firstRow() < end && p.firstRow() + p.rowCount() > start) {
                expectedBytes += p.byteLength();
                expectedPages++;
              }
            }
          }
        }
      }
    }
    int partitions = 2 * (int) Math.ceil(ROWS / 2.0 / perPartition);
    assertThat(pages).isGreaterThan(50);
    assertThat(expectedPages).isLessThanOrEqualTo(pages + partitions - 2);
    // The bytes of those pages, and each partition's metadata of the column (page index and
    // statistics), as the format's range scans read them.
    long read = metric(q, ReadMetrics.BYTES_READ);
    assertThat(read).isEqualTo(scans.bytesRead()).isGreaterThanOrEqualTo(expectedBytes);
    assertThat(metric(q, ReadMetrics.READS)).isEqualTo(scans.reads());
    assertThat(expectedBytes).isLessThan(pageBytes * 13 / 10);
  }

  @Test
  void filtersSkipThePagesTheirStatisticsExclude() throws Exception {
    String where = "plate = 3 and n_genes > 500";
    org.apache.spark.sql.Dataset<Row> q =
        riffle().where(where).agg(functions.count("*"), functions.sum("score"));
    Row got = q.collectAsList().get(0);
    Row want =
        spark
            .read()
            .parquet(pq.toString())
            .where(where)
            .agg(functions.count("*"), functions.sum("score"))
            .first();
    assertThat(got.getLong(0)).isEqualTo(want.getLong(0)).isPositive();
    assertThat(got.getDouble(1))
        .isCloseTo(want.getDouble(1), org.assertj.core.data.Offset.offset(1e-6));
    // Exactly what the format's reader reads of the three columns' candidate pages (and their
    // column metadata, with the statistics); the second file holds no plate 3 and is not scanned.
    PageFilter filter = PageFilter.and(PageFilter.eq("plate", 3), PageFilter.gt("n_genes", 500));
    List<String> columns = List.of("plate", "n_genes", "score");
    long read = metric(q, ReadMetrics.BYTES_READ);
    assertThat(read).isEqualTo(formatScan(columns, filter).bytesRead());
    assertThat(read).isGreaterThanOrEqualTo(candidatePageBytes(columns, filter));
    long all = formatScan(columns, null).bytesRead();
    assertThat(read).isLessThan(all / 8);
    assertThat(metric(q, ReadMetrics.ROWS_SKIPPED)).isGreaterThan(ROWS * 8L / 10);
    assertThat(scanDescription(q))
        .contains("page filter [plate is not null, n_genes is not null, plate = 3, n_genes > 500]");

    // Every kind of predicate gives Parquet's answer, whatever it skips.
    for (String w :
        List.of(
            "plate < 1 or plate > 12",
            "plate in (2, 9) and cell_type = 'type7'",
            "cell_type > 'type5' and score > 0.99",
            "day between date'2026-01-10' and date'2026-01-12'",
            "maybe is null and 12 < plate",
            "maybe is not null and plate = 5 or maybe <=> 5",
            "not (plate = 3) and id < 100",
            "id = 12345")) {
      Row r = riffle().where(w).agg(functions.count("*"), functions.sum("id")).first();
      Row p =
          spark
              .read()
              .parquet(pq.toString())
              .where(w)
              .agg(functions.count("*"), functions.sum("id"))
              .first();
      assertThat(r.toString()).as(w).isEqualTo(p.toString());
    }
    // A filter that no page can match reads no page, only the filter column's metadata.
    org.apache.spark.sql.Dataset<Row> none = riffle().where("plate = 99").select("score");
    assertThat(none.collectAsList()).isEmpty();
    assertThat(metric(none, ReadMetrics.BYTES_READ))
        .isEqualTo(formatScan(List.of("plate", "score"), PageFilter.eq("plate", 99)).bytesRead())
        .isLessThan(all / 50);
  }

  @Test
  void aSelectiveFilterBesideAWideColumnReadsTheFilterFirst() throws Exception {
    // An embedding of 64 floats beside a narrow id: a filter on id reads id's candidate pages,
    // then only the matching rows of emb (takes for a few rows), not emb's candidate pages.
    Path wide = dir.resolve("wide");
    Path widePq = dir.resolve("wide-pq");
    org.apache.spark.sql.Dataset<Row> df =
        spark
            .range(0, 20_000, 1, 1)
            .selectExpr(
                "id",
                "cast(id % 97 as int) as k",
                "transform(sequence(1, 64), j -> cast(pmod(hash(id, j), 1000) / 1000.0 as float))"
                    + " as emb");
    df.write().format("riffle").option("pageBytes", 65536).save(wide.toString());
    df.write().parquet(widePq.toString());
    for (String w :
        List.of(
            "id in (5, 12345, 19999)",
            "id between 1000 and 1200 and k = 3",
            "k = 96 or id < 3",
            "id > 19990 or id = 7")) {
      org.apache.spark.sql.Dataset<Row> q =
          spark.read().format("riffle").load(wide.toString()).where(w).orderBy("id");
      List<String> got = new ArrayList<>();
      q.collectAsList().forEach(r -> got.add(r.toString()));
      List<String> want = new ArrayList<>();
      spark
          .read()
          .parquet(widePq.toString())
          .where(w)
          .orderBy("id")
          .collectAsList()
          .forEach(r -> want.add(r.toString()));
      assertThat(got).as(w).isNotEmpty().isEqualTo(want);
    }
    org.apache.spark.sql.Dataset<Row> lookup =
        spark
            .read()
            .format("riffle")
            .load(wide.toString())
            .where("id in (5, 12345, 19999)")
            .select("id", "emb");
    assertThat(lookup.collectAsList()).hasSize(3);
    long read = metric(lookup, ReadMetrics.BYTES_READ);
    org.apache.spark.sql.Dataset<Row> all =
        spark
            .read()
            .format("riffle")
            .load(wide.toString())
            .selectExpr("hash(id, emb) as h")
            .groupBy()
            .sum("h");
    all.collectAsList();
    long whole = metric(all, ReadMetrics.BYTES_READ);
    // Without reading id first, the three candidate pages of emb (about 1/5 of it) would be read.
    assertThat(read).isPositive().isLessThan(whole / 20);
  }

  @Test
  void rowIdIsAMetadataColumnAndLookupsAreTakes() throws Exception {
    // Rows are in id order, so _row_id equals id.
    assertThat(riffle().where("_row_id <> id").select("id", "_row_id").count()).isZero();
    assertThat(riffle().select("_row_id").agg(functions.sum("_row_id")).first().getLong(0))
        .isEqualTo((long) ROWS * (ROWS - 1) / 2);
    // As a job (driverRows 0), whose scan reports what it read; DriverLookupTest: on the driver.
    org.apache.spark.sql.Dataset<Row> lookup =
        spark
            .read()
            .format("riffle")
            .option("driverRows", 0)
            .load(ds.toString())
            .where("_row_id in (5, 30001, 59999)")
            .select("*", "_row_id");
    // Sorted here: orderBy would sample the scan in a job of its own, and count its reads twice.
    List<Row> rows = new ArrayList<>(lookup.collectAsList());
    rows.sort(java.util.Comparator.comparingLong(r -> r.getLong(0)));
    assertThat(rows).extracting(r -> r.getLong(0)).containsExactly(5L, 30001L, 59999L);
    assertThat(rows).extracting(r -> r.getLong(7)).containsExactly(5L, 30001L, 59999L);
    assertThat(rows.toString())
        .isEqualTo(
            spark
                .read()
                .parquet(pq.toString())
                .where("id in (5, 30001, 59999)")
                .orderBy("id")
                .selectExpr("*", "id")
                .collectAsList()
                .toString());
    // Three rows of seven columns: exactly the format's takes of them, a few sectors each, not the
    // pages of a scan.
    ReadStats takes = formatTake(new long[][] {{5}, {1, 29999}}, LOOKUP_FIELDS);
    long sectors = metric(lookup, ReadMetrics.SECTORS);
    assertThat(sectors).isEqualTo(takes.sectors()).isLessThanOrEqualTo(3 * 7 * 8);
    assertThat(sectors * 10)
        .isLessThan(
            metric(riffle().selectExpr("hash(*) as h").groupBy().sum("h"), ReadMetrics.SECTORS));
    assertThat(scanDescription(lookup)).contains("row ids 3");
    // Ranges, equalities and their combinations; exact, so Spark has nothing left to filter.
    for (String w :
        List.of(
            "_row_id between 100 and 199",
            "_row_id = 7 or _row_id >= 59990",
            "_row_id < 3 and plate = 0",
            "_row_id in (1, 2, 70000) or _row_id > 59999")) {
      Row r = riffle().where(w).agg(functions.count("*"), functions.sum("id")).first();
      Row p =
          spark
              .read()
              .parquet(pq.toString())
              .where(w.replace("_row_id", "id"))
              .agg(functions.count("*"), functions.sum("id"))
              .first();
      assertThat(r.toString()).as(w).isEqualTo(p.toString());
    }
  }

  @Test
  void countComesFromTheManifestAndLimitsStopEarly() {
    org.apache.spark.sql.Dataset<Row> count = riffle().groupBy().count();
    assertThat(count.first().getLong(0)).isEqualTo(ROWS);
    assertThat(scanDescription(count)).contains("count(*) from the manifest");
    org.apache.spark.sql.Dataset<Row> some = riffle().where("_row_id < 1000").groupBy().count();
    assertThat(some.first().getLong(0)).isEqualTo(1000);
    assertThat(scanDescription(some)).contains("count(*) from the manifest");
    // A count with a filter on data still reads the filter's column.
    assertThat(riffle().where("plate = 2").count())
        .isEqualTo(spark.read().parquet(pq.toString()).where("plate = 2").count());

    org.apache.spark.sql.Dataset<Row> first = riffle().select("id", "score").limit(10);
    assertThat(first.collectAsList()).hasSize(10);
    long full =
        metric(riffle().select("id", "score").groupBy().sum("score"), ReadMetrics.BYTES_READ);
    assertThat(metric(first, ReadMetrics.BYTES_READ)).isPositive().isLessThan(full / 20);
  }
}

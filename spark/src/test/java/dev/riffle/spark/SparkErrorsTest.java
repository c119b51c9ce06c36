package dev.riffle.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.DatasetLayout;
import dev.riffle.dataset.Manifest;
import dev.riffle.dataset.storage.LocalStorage;
import dev.riffle.dataset.storage.Storage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.UserDefinedType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad inputs through Spark fail with a message that names the resource (dataset, file, column),
 * never deep inside Spark; and save modes treat a location that holds something other than a
 * dataset as Spark users expect: ignore leaves it alone, the other modes refuse it, and nothing is
 * written there.
 */
class SparkErrorsTest {
  static SparkSession spark;

  @TempDir Path dir;

  @BeforeAll
  static void start() {
    spark = LocalSpark.session();
  }

  org.apache.spark.sql.Dataset<Row> read(Path p) {
    return spark.read().format("riffle").load(p.toString());
  }

  /** A dataset of 1000 rows in 2 files, uncompressed so that a flipped byte hits a page. */
  Path dataset() {
    Path ds = dir.resolve("ds");
    spark
        .range(1000)
        .repartition(2)
        .selectExpr("id", "repeat(cast(id as string), 20) as s")
        .write()
        .format("riffle")
        .option("zstdLevel", 0)
        .save(ds.toString());
    return ds;
  }

  static List<Path> dataFiles(Path ds) throws Exception {
    try (Stream<Path> s = Files.list(ds.resolve(DatasetLayout.DATA_DIR))) {
      return s.sorted().toList();
    }
  }

  static String uri(Path p) {
    return new LocalStorage(p).uri();
  }

  @Test
  void readsOfWhatIsNotADatasetNameTheLocation() throws Exception {
    Path missing = dir.resolve("missing");
    assertThatThrownBy(() -> read(missing))
        .hasMessageContaining(uri(missing) + ": no Riffle dataset there");
    Path parquet = dir.resolve("parquet");
    spark.range(5).write().parquet(parquet.toString());
    assertThatThrownBy(() -> read(parquet))
        .hasMessageContaining(uri(parquet) + ": no Riffle dataset there");
    Path part;
    try (Stream<Path> s = Files.list(parquet)) {
      part = s.filter(p -> p.toString().endsWith(".parquet")).findFirst().orElseThrow();
    }
    assertThatThrownBy(() -> read(part))
        .hasMessageContaining(uri(part) + ": no Riffle dataset there");
    // A data file of a dataset is not a dataset either.
    Path file = dataFiles(dataset()).get(0);
    assertThatThrownBy(() -> read(file))
        .hasMessageContaining(uri(file) + ": no Riffle dataset there");
  }

  @Test
  void badOptionsNameTheOption() throws Exception {
    Path ds = dataset();
    assertThatThrownBy(() -> spark.read().format("riffle").option("version", 0).load(ds.toString()))
        .hasMessage("riffle option version must be at least 1, not 0");
    assertThatThrownBy(() -> spark.read().format("riffle").option("version", 2).load(ds.toString()))
        .hasMessage(uri(ds) + ": version 2 does not exist; versions are [1]");
    assertThatThrownBy(
            () -> spark.read().format("riffle").option("split", "test").load(ds.toString()))
        .hasMessageContaining(uri(ds) + ": no split 'test' in version 1; splits are []");
    assertThatThrownBy(() -> spark.read().format("riffle").load().count())
        .hasMessageContaining("riffle needs a dataset location");
    // A user-specified schema must be the dataset's; the message says where it is not, even when
    // only nullability differs (which simpleString does not show).
    assertThatThrownBy(
            () ->
                spark
                    .read()
                    .format("riffle")
                    .schema("id long, s string")
                    .load(ds.toString())
                    .count())
        .hasMessageContaining(
            "column 'id' is bigint NOT NULL in the dataset but bigint (nullable) in the"
                + " user-specified schema");
    assertThatThrownBy(
            () ->
                spark
                    .read()
                    .format("riffle")
                    .schema("id long, t string")
                    .load(ds.toString())
                    .count())
        .hasMessageContaining("the dataset's columns are [id, s], not [id, t]");
    assertThatThrownBy(
            () ->
                spark
                    .range(3)
                    .write()
                    .format("riffle")
                    .partitionBy("id")
                    .save(dir.resolve("p").toString()))
        .hasMessageContaining("not partitioned by column");
    assertThat(Files.exists(dir.resolve("p"))).isFalse();
  }

  @Test
  void damagedDataFilesNameTheFile() throws Exception {
    Path ds = dataset();
    List<Path> files = dataFiles(ds);
    assertThat(files).hasSize(2);
    byte[] b = Files.readAllBytes(files.get(0));
    b[b.length / 3] ^= 0x55;
    Files.write(files.get(0), b);
    // Whole-file and row-range partitions are both scans of whole, checksummed pages.
    assertThatThrownBy(() -> read(ds).collectAsList())
        .hasMessageContaining(files.get(0) + " at offset ")
        .hasMessageContaining("checksum");
    assertThatThrownBy(
            () ->
                spark
                    .read()
                    .format("riffle")
                    .option("rowsPerPartition", 100)
                    .load(ds.toString())
                    .collectAsList())
        .hasMessageContaining(files.get(0) + " at offset ")
        .hasMessageContaining("checksum");

    byte[] whole = Files.readAllBytes(files.get(1));
    Files.write(files.get(1), java.util.Arrays.copyOf(whole, 100));
    assertThatThrownBy(() -> read(ds).select("id").collectAsList())
        .hasMessageContaining(files.get(1) + " at offset 0: is 100 bytes but the manifest says");
    Files.delete(files.get(1));
    assertThatThrownBy(() -> read(ds).select("id").collectAsList())
        .hasMessageContaining(
            uri(ds)
                + "/data/"
                + files.get(1).getFileName()
                + ": a data file the dataset's manifest names is missing");
  }

  @Test
  void swappedDataFilesAreRefusedNamingTheFile() throws Exception {
    // Two files of equal length and row count: the same shape of rows, written twice.
    Path ds = dir.resolve("swap");
    for (int part = 0; part < 2; part++) {
      spark
          .range(part * 500L, part * 500L + 500)
          .coalesce(1)
          .selectExpr("id", "repeat('x', 20) as s")
          .write()
          .format("riffle")
          .mode(part == 0 ? "error" : "append")
          .option("zstdLevel", 0)
          .save(ds.toString());
    }
    Manifest m;
    try (Storage s = new LocalStorage(ds)) {
      m = Dataset.readManifest(s, 2);
    }
    assertThat(m.files()).hasSize(2).allMatch(f -> f.footerCrc32c() != null);
    Path a = ds.resolve(m.files().get(0).path());
    Path b = ds.resolve(m.files().get(1).path());
    assertThat(Files.size(a)).isEqualTo(Files.size(b));
    Path tmp = dir.resolve("tmp");
    Files.move(a, tmp);
    Files.move(b, a);
    Files.move(tmp, b);
    // A partition per file, and row-range partitions.
    for (org.apache.spark.sql.Dataset<Row> frame :
        List.of(
            read(ds),
            spark.read().format("riffle").option("rowsPerPartition", 100).load(ds.toString()))) {
      // Whichever file's task fails first is named.
      assertThatThrownBy(() -> frame.select("id").collectAsList())
          .hasMessageContaining(" is not the file version 2 names (footer CRC 0x")
          .hasMessageContaining("files were swapped or replaced")
          .satisfies(
              e ->
                  assertThat(e.getMessage())
                      .containsAnyOf(
                          m.files().get(0).path() + " is not",
                          m.files().get(1).path() + " is not"));
    }
  }

  @Test
  void saveModesOnALocationThatHoldsSomethingElse() throws Exception {
    Path parquet = dir.resolve("parquet");
    spark.range(5).write().parquet(parquet.toString());
    List<String> before;
    try (Stream<Path> s = Files.list(parquet)) {
      before = s.map(Path::toString).sorted().toList();
    }
    for (String mode : List.of("error", "errorifexists", "append", "overwrite")) {
      assertThatThrownBy(
              () -> spark.range(3).write().format("riffle").mode(mode).save(parquet.toString()))
          .as(mode)
          .hasMessageContaining(
              "cannot write a Riffle dataset at "
                  + uri(parquet)
                  + ": the location holds files that are not part of a Riffle dataset (")
          .hasMessageContaining("_SUCCESS");
    }
    spark.range(3).write().format("riffle").mode("ignore").save(parquet.toString());
    try (Stream<Path> s = Files.list(parquet)) {
      assertThat(s.map(Path::toString).sorted().toList()).isEqualTo(before);
    }
    assertThat(spark.read().parquet(parquet.toString()).count()).isEqualTo(5);

    Path file = dir.resolve("file.txt");
    Files.writeString(file, "not a dataset");
    assertThatThrownBy(() -> spark.range(3).write().format("riffle").save(file.toString()))
        .hasMessageContaining(
            "cannot write a Riffle dataset at " + uri(file) + ": the location is a file");
    spark.range(3).write().format("riffle").mode("ignore").save(file.toString());
    assertThat(Files.readString(file)).isEqualTo("not a dataset");

    // An empty directory, or none, is where a dataset is made, in every mode.
    for (String mode : List.of("error", "ignore", "append", "overwrite")) {
      Path empty = Files.createDirectories(dir.resolve("empty-" + mode));
      spark.range(3).write().format("riffle").mode(mode).save(empty.toString());
      Path none = dir.resolve("none-" + mode);
      spark.range(4).write().format("riffle").mode(mode).save(none.toString());
      assertThat(read(empty).count()).as(mode).isEqualTo(3);
      assertThat(read(none).count()).as(mode).isEqualTo(4);
      try (Storage s = new LocalStorage(none)) {
        assertThat(Dataset.versions(s)).containsExactly(1L);
      }
    }
  }

  @Test
  void typesWithoutARiffleEquivalentFailOnTheDriverNamingTheColumn() {
    Path out = dir.resolve("out");
    assertThatThrownBy(
            () ->
                spark
                    .range(3)
                    .selectExpr("id", "make_interval(1, 2, 3, 4, 5, 6, 7) as iv")
                    .write()
                    .format("riffle")
                    .save(out.toString()))
        .hasMessageStartingWith("field 'iv' has type interval")
        .hasMessageContaining("has no Riffle equivalent");
    assertThatThrownBy(
            () ->
                spark
                    .range(3)
                    .selectExpr("id", "named_struct('v', parse_json('{\"a\": 1}')) as s")
                    .write()
                    .format("riffle")
                    .save(out.toString()))
        .hasMessageStartingWith("field 's.v' has type variant");
    assertThatThrownBy(
            () ->
                spark
                    .range(3)
                    .selectExpr("id", "array(interval '1' month) as m")
                    .write()
                    .format("riffle")
                    .save(out.toString()))
        .hasMessageStartingWith("field 'm[]' has type interval month");
    StructType schema =
        new StructType().add("id", DataTypes.IntegerType).add("p", new PointUDT(), true);
    assertThatThrownBy(
            () ->
                spark
                    .createDataFrame(List.of(RowFactory.create(1, new Point(1, 2))), schema)
                    .write()
                    .format("riffle")
                    .save(out.toString()))
        .hasMessageStartingWith("field 'p' has type user-defined " + PointUDT.class.getName())
        .hasMessageContaining("convert the column to its SQL type (array<double>)");
    assertThat(Files.exists(out)).isFalse();
  }

  /** A user type other than an ML vector. */
  static final class Point implements java.io.Serializable {
    final double x;
    final double y;

    Point(double x, double y) {
      this.x = x;
      this.y = y;
    }
  }

  static final class PointUDT extends UserDefinedType<Point> {
    @Override
    public DataType sqlType() {
      return DataTypes.createArrayType(DataTypes.DoubleType, false);
    }

    @Override
    public Object serialize(Point p) {
      return new org.apache.spark.sql.catalyst.util.GenericArrayData(new Object[] {p.x, p.y});
    }

    @Override
    public Point deserialize(Object datum) {
      org.apache.spark.sql.catalyst.util.ArrayData a =
          (org.apache.spark.sql.catalyst.util.ArrayData) datum;
      return new Point(a.getDouble(0), a.getDouble(1));
    }

    @Override
    public Class<Point> userClass() {
      return Point.class;
    }
  }
}

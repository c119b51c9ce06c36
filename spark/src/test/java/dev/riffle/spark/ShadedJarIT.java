package dev.riffle.spark;

import static org.assertj.core.api.Assertions.assertThat;

import dev.riffle.hadoop.HadoopStorage;
import dev.riffle.hadoop.testing.LocalS3;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.opentest4j.TestAbortedException;

/**
 * The jar users add to spark-submit: holds the connector, the format and dataset modules, the s3
 * module's HadoopStorage and a relocated RoaringBitmap, and nothing a Spark cluster already has or
 * adds for s3a: (Hadoop, hadoop-aws, the AWS SDK); and it works on its own next to Spark's class
 * path (plus hadoop-aws and the SDK), on a local path and, when the local S3 server is up, on s3a:.
 */
class ShadedJarIT {
  static final Path JAR = Path.of(System.getProperty("riffle.shadedJar"));
  @TempDir Path dir;

  @Test
  void holdsTheConnectorAndItsModulesOnly() throws IOException {
    List<String> names = new ArrayList<>();
    try (JarFile jar = new JarFile(JAR.toFile())) {
      jar.stream().map(JarEntry::getName).forEach(names::add);
      assertThat(names)
          .contains(
              "dev/riffle/spark/RiffleDataSource.class",
              "dev/riffle/spark/vector/ColumnVectors.class",
              "dev/riffle/format/read/FileReader.class",
              "dev/riffle/dataset/Dataset.class",
              "dev/riffle/dataset/write/DatasetWriter.class",
              "dev/riffle/dataset/write/DatasetCommit.class",
              "dev/riffle/hadoop/HadoopStorage.class",
              "dev/riffle/hadoop/HadoopSource.class",
              "dev/riffle/hadoop/S3aConditionalCreate.class",
              "dev/riffle/shaded/org/roaringbitmap/longlong/Roaring64Bitmap.class");
      for (String prefix :
          List.of(
              "org/apache/spark/",
              "org/apache/arrow/",
              "org/apache/hadoop/",
              "software/amazon/",
              "com/amazonaws/",
              "org/apache/commons/",
              "org/apache/http/",
              "dev/riffle/hadoop/stage/",
              "dev/riffle/hadoop/lazy/",
              "org/apache/parquet/",
              "com/fasterxml/",
              "com/github/luben/",
              "org/roaringbitmap/",
              "scala/",
              "io/netty/",
              "dev/riffle/convert/",
              "dev/riffle/loader/")) {
        assertThat(names).noneMatch(n -> n.startsWith(prefix));
      }
      // Nor under META-INF/versions: the jar is not multi-release.
      assertThat(names).noneMatch(n -> n.startsWith("META-INF/versions/"));
      String services =
          new String(
              jar.getInputStream(
                      jar.getEntry(
                          "META-INF/services/org.apache.spark.sql.sources.DataSourceRegister"))
                  .readAllBytes(),
              StandardCharsets.UTF_8);
      assertThat(services.trim()).isEqualTo("dev.riffle.spark.RiffleDataSource");
      // The dataset's classes refer to the relocated bitmap, not to Spark's.
      String rowSets =
          new String(
              jar.getInputStream(jar.getEntry("dev/riffle/dataset/RowSets.class")).readAllBytes(),
              StandardCharsets.ISO_8859_1);
      assertThat(rowSets)
          .contains("dev/riffle/shaded/org/roaringbitmap")
          .doesNotContain("Lorg/roaringbitmap");
    }
  }

  /**
   * As the README's "With Spark" section says: {@code spark-submit --jars riffle-spark.jar} (here
   * its launcher class, {@code org.apache.spark.deploy.SparkSubmit}, which is what the script runs)
   * with Spark's class path alone, the application in a jar of its own, S3A settings as {@code
   * --conf spark.hadoop.fs.s3a.*}.
   */
  @Test
  void sparkSubmitWithTheJarWritesAndReads() throws Exception {
    // The test class path minus this project's own modules and classes: Spark, Hadoop, hadoop-aws.
    List<String> cp = new ArrayList<>();
    for (String e :
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"))
            .split(File.pathSeparator)) {
      boolean ours =
          e.contains("/dev/riffle/riffle-")
              || Path.of(e).getFileName().toString().startsWith("riffle-")
              || e.contains("/target/classes")
              || e.contains("/target/test-classes");
      if (!ours && !e.isBlank()) {
        cp.add(e);
      }
    }
    Path app = appJar(dir.resolve("app.jar"));
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(Arrays.asList(System.getProperty("riffle.argLine").trim().split("\\s+")));
    cmd.add("-cp");
    cmd.add(String.join(File.pathSeparator, cp));
    cmd.addAll(
        List.of(
            "org.apache.spark.deploy.SparkSubmit",
            "--master",
            "local[2]",
            "--conf",
            "spark.ui.enabled=false",
            "--conf",
            "spark.driver.host=127.0.0.1",
            "--conf",
            "spark.driver.bindAddress=127.0.0.1",
            "--jars",
            JAR.toString(),
            "--class",
            ShadedJarMain.class.getName()));
    String s3a = s3aLocation();
    if (s3a != null) {
      SparkS3IT.s3aSettings()
          .forEach((k, v) -> cmd.addAll(List.of("--conf", "spark.hadoop." + k + "=" + v)));
    }
    cmd.add(app.toString());
    String local = dir.resolve("ds").toString();
    cmd.add(local);
    if (s3a != null) {
      cmd.add(s3a);
    }
    Path log = dir.resolve("out.log");
    try {
      Process p =
          new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
      assertThat(p.waitFor(180, TimeUnit.SECONDS)).as("finished").isTrue();
      String out = Files.readString(log);
      System.out.println(out);
      assertThat(p.exitValue()).as(out).isZero();
      // The connector's classes came from the jar given to --jars.
      String checks = " rows=2000 sum=999000 v1=1000 class=file:" + JAR;
      assertThat(out).contains(local + ":" + checks);
      if (s3a != null) {
        assertThat(out).contains(s3a + ":" + checks);
      }
    } finally {
      if (s3a != null) {
        Configuration conf = new Configuration();
        SparkS3IT.s3aSettings().forEach(conf::set);
        try (HadoopStorage s = new HadoopStorage(s3a, conf)) {
          s.fileSystem().delete(s.root(), true);
        }
      }
    }
  }

  /** The application's jar: {@link ShadedJarMain} alone, as a user's job would be packaged. */
  static Path appJar(Path jar) throws IOException {
    String name = ShadedJarMain.class.getName().replace('.', '/') + ".class";
    try (var in = ShadedJarMain.class.getClassLoader().getResourceAsStream(name);
        JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
      out.putNextEntry(new JarEntry(name));
      in.transferTo(out);
      out.closeEntry();
    }
    return jar;
  }

  /**
   * A fresh s3a: location on the local S3 server, or null when it is not running (a failure instead
   * with RIFFLE_S3_REQUIRED=1).
   */
  static String s3aLocation() throws IOException {
    try {
      LocalS3.endpoint();
    } catch (TestAbortedException e) {
      return null;
    }
    return "s3a://" + LocalS3.bucket() + "/spark-shaded-" + UUID.randomUUID() + "/ds";
  }
}

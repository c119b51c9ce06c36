package dev.riffle.spark;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The jar users add to spark-submit: holds the connector, the format and writer modules and a
 * relocated RoaringBitmap, and nothing a Spark cluster already has; and it works on its own next to
 * Spark's class path.
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
              "dev/riffle/format/FileReader.class",
              "dev/riffle/format/dataset/Dataset.class",
              "dev/riffle/writer/DatasetWriter.class",
              "dev/riffle/writer/DatasetCommit.class",
              "dev/riffle/shaded/org/roaringbitmap/longlong/Roaring64Bitmap.class");
      for (String prefix :
          List.of(
              "org/apache/spark/",
              "org/apache/arrow/",
              "org/apache/hadoop/",
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
      String services =
          new String(
              jar.getInputStream(
                      jar.getEntry(
                          "META-INF/services/org.apache.spark.sql.sources.DataSourceRegister"))
                  .readAllBytes(),
              StandardCharsets.UTF_8);
      assertThat(services.trim()).isEqualTo("dev.riffle.spark.RiffleDataSource");
      // The format's classes refer to the relocated bitmap, not to Spark's.
      String rowSets =
          new String(
              jar.getInputStream(jar.getEntry("dev/riffle/format/dataset/RowSets.class"))
                  .readAllBytes(),
              StandardCharsets.ISO_8859_1);
      assertThat(rowSets)
          .contains("dev/riffle/shaded/org/roaringbitmap")
          .doesNotContain("Lorg/roaringbitmap");
    }
  }

  @Test
  void writesAndReadsWithSparkAndTheJarAlone() throws Exception {
    // The test class path minus this project's own modules, plus the shaded jar.
    List<String> cp = new ArrayList<>();
    for (String e :
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"))
            .split(File.pathSeparator)) {
      boolean ours =
          e.contains("/dev/riffle/riffle-")
              || (e.contains("/target/classes") && !e.contains("/target/test-classes"));
      if (!ours && !e.isBlank()) {
        cp.add(e);
      }
    }
    cp.add(JAR.toString());
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(Arrays.asList(System.getProperty("riffle.argLine").trim().split("\\s+")));
    cmd.add("-cp");
    cmd.add(String.join(File.pathSeparator, cp));
    cmd.add(ShadedJarMain.class.getName());
    cmd.add(dir.resolve("ds").toString());
    Path log = dir.resolve("out.log");
    Process p =
        new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    assertThat(p.waitFor(180, TimeUnit.SECONDS)).as("finished").isTrue();
    String out = Files.readString(log);
    assertThat(p.exitValue()).as(out).isZero();
    assertThat(out).contains("rows=2000 sum=999000 v1=1000").contains("class=file:" + JAR);
  }
}

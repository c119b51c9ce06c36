package dev.riffle.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The runners' command lines: the option names and defaults the documented commands use. */
class RunnerOptionsTest {
  @Test
  void compareKeepsItsDefaults() {
    Compare c = new Compare();
    new CommandLine(c).parseArgs();
    assertThat(c.dir).isEqualTo(Path.of("/tmp/riffle-bench"));
    assertThat(c.out).isEqualTo(Path.of("/tmp/riffle-results"));
    assertThat(c.types).isEqualTo(Types.ALL);
    assertThat(c.formats).isEqualTo(Compare.TAKE_FORMATS);
    assertThat(c.narrowRows).isEqualTo(10_000_000L);
    assertThat(c.wideMib).isEqualTo(256);
    assertThat(c.rowsOverride).isEmpty();
    assertThat(c.concurrency).containsExactly(1, 16);
    assertThat(c.take).isEqualTo(256);
    assertThat(c.seconds).isEqualTo(2);
    assertThat(c.caches).containsExactly("cold", "warm");
    assertThat(c.fio).isTrue();
    assertThat(c.splitFloats).isFalse();
    assertThat(c.listSectors).isFalse();
    assertThat(c.seed).isEqualTo(1);
    assertThat(c.name).isNull();
  }

  @Test
  void compareParsesEveryOption() {
    Compare c = new Compare();
    new CommandLine(c)
        .parseArgs(
            "--dir",
            "/d",
            "--out",
            "/o",
            "--types",
            "u64,vec768",
            "--formats",
            "riffle,parquet",
            "--narrow-rows",
            "100",
            "--wide-mib",
            "4",
            "--rows",
            "u64=5,vec768=7",
            "--concurrency",
            "1,4,64",
            "--take",
            "16",
            "--seconds",
            "0.5",
            "--cache",
            "warm",
            "--no-fio",
            "--split-floats",
            "--list-sectors",
            "--seed",
            "3",
            "--name",
            "n");
    assertThat(c.dir).isEqualTo(Path.of("/d"));
    assertThat(c.out).isEqualTo(Path.of("/o"));
    assertThat(c.types).containsExactly("u64", "vec768");
    assertThat(c.formats).containsExactly("riffle", "parquet");
    assertThat(c.narrowRows).isEqualTo(100);
    assertThat(c.wideMib).isEqualTo(4);
    assertThat(c.rowsOverride).containsExactly(Map.entry("u64", 5L), Map.entry("vec768", 7L));
    assertThat(c.rows("u64")).isEqualTo(5);
    assertThat(c.concurrency).containsExactly(1, 4, 64);
    assertThat(c.take).isEqualTo(16);
    assertThat(c.seconds).isEqualTo(0.5);
    assertThat(c.caches).containsExactly("warm");
    assertThat(c.fio).isFalse();
    assertThat(c.splitFloats).isTrue();
    assertThat(c.listSectors).isTrue();
    assertThat(c.seed).isEqualTo(3);
    assertThat(c.name).isEqualTo("n");
  }

  @Test
  void loadCompareKeepsItsDefaultsAndNeedsItsThreePaths() {
    LoadCompare.Args a = new LoadCompare.Args();
    new CommandLine(a).parseArgs("--data", "/d", "--parquet", "/p.parquet", "--out", "/o");
    LoadCompare.Options o = a.options("LoadCompare --test");
    assertThat(o.data()).isEqualTo(Path.of("/d"));
    assertThat(o.name()).startsWith("loader-compare-");
    assertThat(o.batch()).isEqualTo(64);
    assertThat(o.block()).isEqualTo(16);
    assertThat(o.grid())
        .extracting(bf -> bf[0] + ":" + bf[1])
        .containsExactly("16:64", "16:256", "16:512", "64:512");
    assertThat(o.buffer()).isEqualTo(16384);
    assertThat(o.label()).isEqualTo("plate");
    assertThat(o.rounds()).isEqualTo(2);
    assertThat(o.baselineRounds()).isEqualTo(2);
    assertThat(o.cold()).isFalse();
    assertThat(o.direct()).isFalse();
    assertThat(o.threads()).isEqualTo(2);
    assertThat(o.memoryBytes()).isEqualTo(1024L << 20);
    assertThat(o.jitter()).isEqualTo(0.25);
    assertThat(o.seed()).isEqualTo(1);
    assertThat(o.sequentialFetch()).containsExactly(256);

    a = new LoadCompare.Args();
    new CommandLine(a)
        .parseArgs(
            "--data",
            "/d",
            "--parquet",
            "/p",
            "--out",
            "/o",
            "--rounds",
            "3",
            "--cold",
            "--direct",
            "--grid",
            "16:512,32:1024",
            "--sequential",
            "256,512",
            "--memory-mb",
            "2048");
    o = a.options("x");
    assertThat(o.rounds()).isEqualTo(3);
    assertThat(o.baselineRounds()).as("defaults to --rounds").isEqualTo(3);
    assertThat(o.cold()).isTrue();
    assertThat(o.direct()).isTrue();
    assertThat(o.grid()).extracting(bf -> bf[0] + ":" + bf[1]).containsExactly("16:512", "32:1024");
    assertThat(o.sequentialFetch()).containsExactly(256, 512);
    assertThat(o.memoryBytes()).isEqualTo(2048L << 20);

    StringWriter err = new StringWriter();
    int code =
        new CommandLine(new LoadCompare.Args())
            .setErr(new PrintWriter(err))
            .execute("--data", "/d", "--out", "/o");
    assertThat(code).isEqualTo(2);
    assertThat(err.toString()).contains("--parquet");
  }

  @Test
  void positionalRunnersKeepTheirArguments() {
    ScanSweep s = new ScanSweep();
    new CommandLine(s).parseArgs("cold", "3", "/tmp/bin20k-13107-riffle.riffle", "4:1", "default");
    assertThat(s.cache).isEqualTo("cold");
    assertThat(s.rounds).isEqualTo(3);
    assertThat(s.file).isEqualTo(Path.of("/tmp/bin20k-13107-riffle.riffle"));
    assertThat(s.policies).containsExactly("4:1", "default");

    DecodeCost d = new DecodeCost();
    new CommandLine(d).parseArgs("/tmp/f.riffle");
    assertThat(d.file).isEqualTo(Path.of("/tmp/f.riffle"));
    assertThat(d.seconds).isEqualTo(5);
    assertThat(d.take).isEqualTo(256);
    assertThat(d.batch).isEqualTo(0);
    assertThat(d.fields).isEmpty();
    new CommandLine(d = new DecodeCost()).parseArgs("/tmp/f.riffle", "4", "128", "0", "a,b");
    assertThat(d.seconds).isEqualTo(4);
    assertThat(d.take).isEqualTo(128);
    assertThat(d.fields).isEqualTo("a,b");
  }

  @Test
  void everyRunnerPrintsItsHelp() {
    for (Object runner :
        List.of(new Compare(), new LoadCompare.Args(), new ScanSweep(), new DecodeCost())) {
      StringWriter out = new StringWriter();
      int code = new CommandLine(runner).setOut(new PrintWriter(out)).execute("--help");
      assertThat(code).isZero();
      assertThat(out.toString()).startsWith("Usage: ");
    }
  }
}

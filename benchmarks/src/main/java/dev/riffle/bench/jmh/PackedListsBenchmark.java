package dev.riffle.bench.jmh;

import dev.riffle.format.read.FileReader;
import dev.riffle.format.read.ScanCursor;
import dev.riffle.format.write.FileWriter;
import dev.riffle.format.write.WriterOptions;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Decode time per sparse row (a column group of ~1,500 sorted int32 gene ids in [0, 20000) and as
 * many float32 values, the shape of {@code riffle generate sparse}), in memory, with packed records
 * on and off (FORMAT.md §5.3): a 256-row random take and a full scan, in µs per row. Run on request
 * only:
 *
 * <pre>
 * java --add-opens=java.base/java.nio=ALL-UNNAMED -jar benchmarks/target/benchmarks.jar PackedListsBenchmark
 * </pre>
 *
 * <p>On a shared, loaded machine wall-clock scores scatter; {@link #main} instead alternates the
 * two files in one thread for a number of rounds and prints thread CPU time per row (the minimum
 * over rounds after two warm-up rounds):
 *
 * <pre>
 * java --add-opens=java.base/java.nio=ALL-UNNAMED -cp benchmarks/target/benchmarks.jar \
 *     dev.riffle.bench.jmh.PackedListsBenchmark [rounds=12]
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
    value = 1,
    jvmArgsAppend = {"--add-opens=java.base/java.nio=ALL-UNNAMED"})
public class PackedListsBenchmark {
  static final int ROWS = 4096;
  static final int TAKE = 256;
  static final int GENES = 20_000;

  @Param({"true", "false"})
  public boolean pack;

  private BufferAllocator allocator;
  private byte[] file;
  private long[][] takes;
  private int next;

  @Setup(Level.Trial)
  public void setup() throws IOException {
    allocator = new RootAllocator();
    ArrowType f32 = new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
    Schema schema =
        new Schema(List.of(list("indices", new ArrowType.Int(32, true)), list("values", f32)));
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
      fill(root, new SplittableRandom(1));
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      WriterOptions o =
          WriterOptions.defaults().withColumnGroup("indices", "values").withPackRecords(pack);
      try (FileWriter w = FileWriter.create(out, schema, null, o)) {
        w.write(root);
        w.finish();
      }
      file = out.toByteArray();
    }
    SplittableRandom r = new SplittableRandom(7);
    takes = new long[64][];
    for (int i = 0; i < takes.length; i++) {
      takes[i] = r.longs(TAKE, 0, ROWS).toArray();
    }
    System.out.printf(
        Locale.ROOT, "%npack=%s: %d bytes, %d bytes/row%n", pack, file.length, file.length / ROWS);
  }

  private static Field list(String name, ArrowType item) {
    return new Field(
        name,
        FieldType.nullable(ArrowType.List.INSTANCE),
        List.of(new Field("item", FieldType.notNullable(item), null)));
  }

  /** Rows of 1,000–2,000 sorted distinct gene ids (each gene kept with that probability). */
  private static void fill(VectorSchemaRoot root, SplittableRandom r) {
    root.allocateNew();
    ListVector idx = (ListVector) root.getVector(0);
    ListVector val = (ListVector) root.getVector(1);
    IntVector ids = (IntVector) idx.getDataVector();
    Float4Vector vals = (Float4Vector) val.getDataVector();
    for (int i = 0; i < ROWS; i++) {
      double p = (1000 + r.nextInt(1000)) / (double) GENES;
      int a = idx.startNewValue(i);
      val.startNewValue(i);
      int n = 0;
      for (int g = 0; g < GENES; g++) {
        if (r.nextDouble() < p) {
          ids.setSafe(a + n, g);
          vals.setSafe(a + n, (float) (0.1 + Math.exp(2 * r.nextDouble()) - 1));
          n++;
        }
      }
      idx.endValue(i, n);
      val.endValue(i, n);
    }
    idx.setValueCount(ROWS);
    val.setValueCount(ROWS);
    root.setRowCount(ROWS);
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    allocator.close();
  }

  public static void main(String[] args) throws Exception {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 12;
    Blackhole bh =
        new Blackhole(
            "Today's password is swordfish. I understand instantiating Blackholes directly is"
                + " dangerous.");
    PackedListsBenchmark[] b = {new PackedListsBenchmark(), new PackedListsBenchmark()};
    b[0].pack = true;
    b[1].pack = false;
    for (PackedListsBenchmark x : b) {
      x.setup();
    }
    java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
    double[][] best = {{Double.MAX_VALUE, Double.MAX_VALUE}, {Double.MAX_VALUE, Double.MAX_VALUE}};
    for (int r = 0; r < rounds; r++) {
      for (int k = 0; k < 2; k++) {
        long c0 = mx.getCurrentThreadCpuTime();
        for (int i = 0; i < 5; i++) {
          b[k].scan(bh);
        }
        double scan = (mx.getCurrentThreadCpuTime() - c0) / 1e3 / (5.0 * ROWS);
        c0 = mx.getCurrentThreadCpuTime();
        for (int i = 0; i < 80; i++) {
          b[k].take(bh);
        }
        double take = (mx.getCurrentThreadCpuTime() - c0) / 1e3 / (80.0 * TAKE);
        if (r >= 2) {
          best[k][0] = Math.min(best[k][0], scan);
          best[k][1] = Math.min(best[k][1], take);
        }
      }
    }
    System.out.printf(
        Locale.ROOT,
        "cpu us/row, min of %d rounds: packed scan %.2f take %.2f | plain scan %.2f take %.2f%n",
        rounds - 2,
        best[0][0],
        best[0][1],
        best[1][0],
        best[1][1]);
    for (PackedListsBenchmark x : b) {
      x.tearDown();
    }
  }

  /** A 256-row random take of both fields, per row. */
  @Benchmark
  @OperationsPerInvocation(TAKE)
  public void take(Blackhole bh) throws IOException {
    try (FileReader r = FileReader.open(new CodecBenchmark.Bytes(file), true, allocator)) {
      try (VectorSchemaRoot b = r.take(takes[next++ & (takes.length - 1)], null)) {
        bh.consume(b.getRowCount());
      }
    }
  }

  /** A full scan of both fields, per row. */
  @Benchmark
  @OperationsPerInvocation(ROWS)
  public void scan(Blackhole bh) throws IOException {
    try (FileReader r = FileReader.open(new CodecBenchmark.Bytes(file), true, allocator)) {
      ScanCursor c = r.scan(null, 512);
      for (VectorSchemaRoot b = c.next(); b != null; b = c.next()) {
        bh.consume(b.getRowCount());
        b.close();
      }
    }
  }
}

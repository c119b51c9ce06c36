package dev.riffle.bench.jmh;

import dev.riffle.datagen.Batches;
import dev.riffle.datagen.Lance8Data;
import dev.riffle.format.io.RandomAccessSource;
import dev.riffle.format.read.FileReader;
import dev.riffle.format.read.ScanCursor;
import dev.riffle.format.write.FileWriter;
import dev.riffle.format.write.WriterOptions;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.openjdk.jmh.annotations.AuxCounters;
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
 * Encode and decode throughput per type, in values per second (one value = one row of the type),
 * entirely in memory: encode = {@link FileWriter} into a byte array (the writer picks the layout
 * and codec per page: sectors with flat, frame-of-reference or record codecs for narrow types,
 * fixed or variable full-zip for wide ones); decode = a full scan, and 256-row random takes, of
 * that byte array. JMH's score is operations/s; the "values" secondary result is values/s. Run on
 * request only:
 *
 * <pre>
 * java --add-opens=java.base/java.nio=ALL-UNNAMED -jar benchmarks/target/benchmarks.jar CodecBenchmark
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(
    value = 1,
    jvmArgsAppend = {"--add-opens=java.base/java.nio=ALL-UNNAMED"})
public class CodecBenchmark {
  static final int ROWS = 65_536;
  static final int TAKE = 256;

  @Param({"u64", "str16", "list_u64", "list_str", "vec768", "bin20k"})
  public String type;

  private BufferAllocator allocator;
  private VectorSchemaRoot batch;
  private byte[] file;
  private int rows;
  private long[][] takes;
  private int next;

  @Setup(Level.Trial)
  public void setup() throws IOException {
    allocator = new RootAllocator();
    rows = Lance8Data.rowBytes(type) <= 100 ? ROWS : 512;
    batch = Batches.all(new Lance8Data(List.of(type)), allocator, rows, 1);
    file = encodeOnce();
    SplittableRandom r = new SplittableRandom(7);
    takes = new long[64][];
    for (int i = 0; i < takes.length; i++) {
      takes[i] = r.longs(TAKE, 0, rows).toArray();
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    batch.close();
    allocator.close();
  }

  private byte[] encodeOnce() throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (FileWriter w = FileWriter.create(out, batch.getSchema(), null, WriterOptions.defaults())) {
      w.write(batch);
      w.finish();
    }
    return out.toByteArray();
  }

  /** Counts values, so that JMH reports values/s beside ops/s ("values" in the results). */
  @State(Scope.Thread)
  @AuxCounters(AuxCounters.Type.OPERATIONS)
  public static class Values {
    public long values;

    @Setup(Level.Iteration)
    public void reset() {
      values = 0;
    }
  }

  /** Encode: see the "values" counter for values per second. */
  @Benchmark
  public byte[] encode(Values v) throws IOException {
    v.values += rows;
    return encodeOnce();
  }

  /** Decode by full scan: see the "values" counter. */
  @Benchmark
  public void decodeScan(Blackhole bh, Values v) throws IOException {
    v.values += rows;
    try (FileReader r = FileReader.open(new Bytes(file), true, allocator)) {
      ScanCursor c = r.scan(null, 8192);
      for (VectorSchemaRoot b = c.next(); b != null; b = c.next()) {
        bh.consume(b.getRowCount());
        b.close();
      }
    }
  }

  /** Decode by random takes of 256 rows: values per second. */
  @Benchmark
  @OperationsPerInvocation(TAKE)
  public void decodeTake(Blackhole bh, Values v) throws IOException {
    v.values += TAKE;
    try (FileReader r = FileReader.open(new Bytes(file), true, allocator)) {
      try (VectorSchemaRoot b = r.take(takes[next++ & (takes.length - 1)], null)) {
        bh.consume(b.getRowCount());
      }
    }
  }

  /** An in-memory file. */
  static final class Bytes implements RandomAccessSource {
    private final byte[] b;

    Bytes(byte[] b) {
      this.b = b;
    }

    @Override
    public String name() {
      return "memory";
    }

    @Override
    public long length() {
      return b.length;
    }

    @Override
    public void readFully(long offset, ByteBuffer dst) throws IOException {
      int n = dst.remaining();
      if (offset < 0 || offset > b.length - (long) n) {
        throw new EOFException("memory: read past the end");
      }
      dst.put(b, (int) offset, n);
    }

    @Override
    public void close() {}
  }
}

package dev.riffle.format.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.riffle.format.io.IoEngine;
import dev.riffle.format.read.FileReader;
import dev.riffle.format.read.ReadStats;
import dev.riffle.format.read.TakePlan;
import dev.riffle.format.testing.TypeCase;
import java.nio.channels.ClosedByInterruptException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The I/O engine returns exactly what the sequential path returns, with the same counters, for
 * every type case of the writer's round-trip tests, with and without O_DIRECT and coalescing.
 */
class ConcurrentTakeTest {
  @TempDir Path dir;
  private final BufferAllocator allocator = new RootAllocator();

  @AfterEach
  void close() {
    allocator.close();
  }

  static Stream<TypeCase> cases() {
    return TypeCase.all().stream();
  }

  private Path write(TypeCase c, int rows, long seed) throws Exception {
    Path file = dir.resolve("t.riffle");
    WriterOptions options = WriterOptions.defaults().withPageBytes(4096).withColumnGroups(c.groups);
    try (RoundTripTest.Data data = new RoundTripTest.Data(c, rows, seed, 0.1, allocator);
        FileWriter w = FileWriter.create(file, c.schema, data.provider, options)) {
      w.write(data.root);
      w.finish();
    }
    return file;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void concurrentTakesEqualSequentialTakes(TypeCase c) throws Exception {
    int rows = Math.min(c.severalPagesRows, 3000);
    Path file = write(c, rows, 42);
    SplittableRandom r = new SplittableRandom(7);
    List<long[]> takes = new ArrayList<>();
    takes.add(new long[] {rows - 1});
    takes.add(new long[] {0, rows - 1, 0, rows / 2});
    for (int n : new int[] {17, 256, 1000}) {
      long[] t = new long[n];
      for (int i = 0; i < n; i++) {
        t[i] = r.nextLong(rows);
      }
      takes.add(t);
    }
    try (FileReader seq = FileReader.open(file, allocator)) {
      for (boolean direct : new boolean[] {false, true}) {
        for (int inFlight : new int[] {2, 16, 64}) {
          for (long gap : new long[] {0, 4096}) {
            try (FileReader par = FileReader.open(file, allocator, direct)) {
              par.setReadsInFlight(inFlight);
              par.loadColumns(null);
              seq.loadColumns(null);
              par.setCoalesceGap(gap);
              seq.setCoalesceGap(gap);
              for (long[] t : takes) {
                String where =
                    c.name + " inFlight=" + inFlight + " gap=" + gap + " direct=" + direct;
                seq.stats().reset();
                par.stats().reset();
                try (VectorSchemaRoot a = seq.take(t, null);
                    VectorSchemaRoot b = par.take(t, null)) {
                  assertThat(b.getRowCount()).as(where).isEqualTo(t.length);
                  if (!a.equals(b)) {
                    assertThat(b.contentToTSVString()).as(where).isEqualTo(a.contentToTSVString());
                  }
                  assertThat(b.equals(a)).as(where).isTrue();
                }
                ReadStats x = seq.stats();
                ReadStats y = par.stats();
                assertThat(y.reads()).as(where).isEqualTo(x.reads());
                assertThat(y.bytesRead()).as(where).isEqualTo(x.bytesRead());
                assertThat(y.sectors()).as(where).isEqualTo(x.sectors());
                assertThat(y.rounds()).as(where).isEqualTo(x.rounds());
                assertThat(y.valuesDecoded()).as(where).isEqualTo(x.valuesDecoded());
              }
            }
          }
        }
      }
    }
  }

  @Test
  void manyCallersShareOneEngine() throws Exception {
    TypeCase c = TypeCase.all().get(0);
    int rows = 20_000;
    Path file = write(c, rows, 3);
    try (FileReader seq = FileReader.open(file, allocator);
        FileReader par = FileReader.open(file, allocator)) {
      par.setReadsInFlight(8);
      List<Thread> threads = new ArrayList<>();
      AtomicReference<Throwable> failure = new AtomicReference<>();
      for (int k = 0; k < 6; k++) {
        int id = k;
        Thread t =
            new Thread(
                () -> {
                  SplittableRandom r = new SplittableRandom(id);
                  try {
                    for (int q = 0; q < 30; q++) {
                      long[] idx = r.longs(256, 0, rows).toArray();
                      try (VectorSchemaRoot a = seq.take(idx, null);
                          VectorSchemaRoot b = par.take(idx, null)) {
                        if (!a.equals(b)) {
                          throw new AssertionError("differs at caller " + id + " take " + q);
                        }
                      }
                    }
                  } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                  }
                });
        threads.add(t);
        t.start();
      }
      for (Thread t : threads) {
        t.join();
      }
      assertThat(failure.get()).isNull();
    }
  }

  @Test
  void interruptingAReadingThreadLeavesTheReaderWorking() throws Exception {
    TypeCase c = TypeCase.all().get(0);
    int rows = 40_000;
    Path file = write(c, rows, 5);
    for (int inFlight : new int[] {1, 16}) {
      try (FileReader reader = FileReader.open(file, allocator)) {
        reader.setReadsInFlight(inFlight);
        long[] idx = new SplittableRandom(1).longs(512, 0, rows).toArray();
        VectorSchemaRoot expected = reader.take(idx, null);
        AtomicReference<Throwable> seen = new AtomicReference<>();
        Thread t =
            new Thread(
                () -> {
                  try {
                    while (true) {
                      reader.take(idx, null).close();
                    }
                  } catch (Throwable e) {
                    seen.set(e);
                  }
                });
        t.start();
        Thread.sleep(200);
        t.interrupt();
        t.join(10_000);
        assertThat(t.isAlive()).isFalse();
        assertThat(seen.get()).isInstanceOf(ClosedByInterruptException.class);
        // The shared channel was reopened: this thread, and the pool, read on.
        for (int k = 0; k < 3; k++) {
          try (VectorSchemaRoot again = reader.take(idx, null)) {
            assertThat(again.equals(expected)).isTrue();
          }
        }
        expected.close();
      }
    }
  }

  @Test
  void singleRowTakesOnAConcurrentEngineStayInTheCallersThread() throws Exception {
    TypeCase c = TypeCase.all().get(1);
    Path file = write(c, 3000, 9);
    try (FileReader reader = FileReader.open(file, allocator)) {
      reader.setIoEngine(IoEngine.shared(32));
      TakePlan plan = reader.plan(new long[] {5}, null);
      assertThat(plan.reads()).isEqualTo(1);
      assertThat(reader.ioEngine().workersFor(plan.reads())).isEqualTo(1);
      try (VectorSchemaRoot one = reader.take(plan)) {
        assertThat(one.getRowCount()).isEqualTo(1);
      }
      assertThatThrownBy(() -> reader.setIoEngine(null))
          .isInstanceOf(IllegalArgumentException.class);
    }
  }
}

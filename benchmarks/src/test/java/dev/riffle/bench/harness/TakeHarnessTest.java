package dev.riffle.bench.harness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The take and scan protocols, with a page cache that only counts (so that the test drops nothing
 * of the machine's) and takers that record what they were asked.
 */
class TakeHarnessTest {
  /** Counts drops and warm reads, and logs them beside the takes, in order. */
  static final class FakeCache implements PageCache {
    final List<String> events = Collections.synchronizedList(new ArrayList<>());
    int drops;
    int warms;

    @Override
    public boolean drop() {
      drops++;
      events.add("drop");
      return true;
    }

    @Override
    public void warm(Path path) {
      warms++;
      events.add("warm " + path);
    }
  }

  /** Records every take it makes. */
  static final class RecordingTaker implements Taker {
    final List<long[]> takes = Collections.synchronizedList(new ArrayList<>());
    final FakeCache cache;
    boolean closed;

    RecordingTaker(FakeCache cache) {
      this.cache = cache;
    }

    @Override
    public void take(long[] rows) {
      takes.add(rows);
      cache.events.add("take");
    }

    @Override
    public void close() {
      closed = true;
    }
  }

  final FakeCache cache = new FakeCache();
  final List<RecordingTaker> opened = new ArrayList<>();

  Taker open() {
    RecordingTaker t = new RecordingTaker(cache);
    opened.add(t);
    return t;
  }

  @Test
  void coldIsRoundsOfOneDropAndOneTakePerThreadAfterAnUntimedTake() throws Exception {
    TakeHarness h = new TakeHarness(8, 3600, 5, cache);
    int[] takesBeforeTimed = new int[1];
    TakeHarness.TakeRun run =
        h.takes(
            this::open,
            3,
            1000,
            "cold",
            Path.of("f"),
            () -> takesBeforeTimed[0] = cache.events.size(),
            "x");
    assertThat(run.rounds()).isEqualTo(TakeHarness.COLD_ROUNDS);
    assertThat(cache.drops).isEqualTo(TakeHarness.COLD_ROUNDS);
    assertThat(cache.warms).isZero();
    assertThat(run.threads()).isEqualTo(3);
    assertThat(run.takes()).isEqualTo(3L * TakeHarness.COLD_ROUNDS);
    assertThat(run.rows()).isEqualTo(3L * TakeHarness.COLD_ROUNDS * 8);
    assertThat(run.rowsPerSecond()).isEqualTo(run.rows() / (run.nanos() / 1e9));
    // The untimed takes come first, before any drop, and the hook runs right after them.
    assertThat(takesBeforeTimed[0]).isEqualTo(3);
    assertThat(cache.events.subList(0, 4)).containsExactly("take", "take", "take", "drop");
    long[] warmUp = h.indices(new SplittableRandom(-1), 1000);
    for (int t = 0; t < 3; t++) {
      RecordingTaker tk = opened.get(t);
      assertThat(tk.takes).hasSize(1 + TakeHarness.COLD_ROUNDS);
      assertThat(tk.takes.get(0)).containsExactly(warmUp);
      // Thread t draws from its own seeded stream, whatever the format.
      SplittableRandom rng = new SplittableRandom(5 * 1_000_003L + t);
      for (int k = 1; k <= TakeHarness.COLD_ROUNDS; k++) {
        assertThat(tk.takes.get(k)).containsExactly(h.indices(rng, 1000));
      }
      assertThat(tk.closed).isTrue();
    }
    // Every round: one drop, then one take per thread.
    List<String> rounds = cache.events.subList(3, cache.events.size());
    for (int k = 0; k < TakeHarness.COLD_ROUNDS; k++) {
      assertThat(rounds.subList(4 * k, 4 * k + 4)).containsExactly("drop", "take", "take", "take");
    }
  }

  @Test
  void coldStopsOnceTheSecondsOfTakesAreSpent() throws Exception {
    TakeHarness.TakeRun run =
        new TakeHarness(4, 1e-9, 1, cache)
            .takes(this::open, 2, 50, "cold", Path.of("f"), null, "x");
    assertThat(run.rounds()).isEqualTo(1);
    assertThat(run.takes()).isEqualTo(2);
    assertThat(cache.drops).isEqualTo(1);
  }

  @Test
  void warmReadsTheFileFirstThenTakesForTheSeconds() throws Exception {
    TakeHarness.TakeRun run =
        new TakeHarness(4, 0.05, 1, cache)
            .takes(this::open, 2, 50, "warm", Path.of("data.file"), null, "x");
    assertThat(cache.events.get(0)).isEqualTo("warm data.file");
    assertThat(cache.warms).isEqualTo(1);
    assertThat(cache.drops).isZero();
    assertThat(run.rounds()).isEqualTo(1);
    assertThat(run.takes()).isGreaterThanOrEqualTo(2);
    assertThat(run.nanos()).isGreaterThanOrEqualTo(50_000_000L);
    assertThat(run.rows()).isEqualTo(run.takes() * 4);
  }

  @Test
  void aFailedTakeFailsTheMeasurementAndClosesTheTakers() {
    TakeHarness h = new TakeHarness(4, 1, 1, cache);
    int[] calls = new int[1];
    assertThatThrownBy(
            () ->
                h.takes(
                    () -> {
                      RecordingTaker t = (RecordingTaker) open();
                      return new Taker() {
                        @Override
                        public void take(long[] rows) throws IOException {
                          if (calls[0]++ > 0) {
                            throw new IOException("short");
                          }
                        }

                        @Override
                        public void close() {
                          t.close();
                        }
                      };
                    },
                    1,
                    10,
                    "cold",
                    Path.of("f"),
                    null,
                    "fmt u64"))
        .isInstanceOf(IOException.class)
        .hasMessage("fmt u64 take failed")
        .hasRootCauseMessage("short");
    assertThat(opened).allMatch(t -> t.closed);
  }

  @Test
  void scanDropsOrWarmsThenTimesOnePassOfEveryRow() throws Exception {
    TakeHarness h = new TakeHarness(4, 1, 1, cache);
    int[] scans = new int[1];
    TakeHarness.ScanRun run =
        h.scan(
            () -> {
              scans[0]++;
              cache.events.add("scan");
              return 100;
            },
            100,
            "cold",
            Path.of("f"),
            true,
            () -> cache.events.add("hook"),
            "fmt");
    assertThat(cache.events).containsExactly("scan", "drop", "hook", "scan");
    assertThat(run.rows()).isEqualTo(100);
    java.util.Map<String, Object> r = new java.util.LinkedHashMap<>();
    run.putInto(r, 1_000_000);
    assertThat(r.keySet())
        .containsExactly("concurrency", "threads", "rows", "seconds", "rows_per_s", "mb_per_s");

    cache.events.clear();
    h.scan(() -> 100, 100, "warm", Path.of("g"), false, null, "fmt");
    assertThat(cache.events).containsExactly("warm g");

    assertThatThrownBy(() -> h.scan(() -> 99, 100, "cold", Path.of("f"), false, null, "fmt"))
        .hasMessage("fmt scanned 99 of 100 rows");
  }

  @Test
  void spreadGivesTheMedianAndEveryRound() {
    assertThat(Spread.median(List.of(3.0, 1.0, 2.0))).isEqualTo(2.0);
    assertThat(Spread.median(List.of(4.0, 1.0, 3.0, 2.0))).isEqualTo(3.0);
    assertThat(Spread.rounds(List.of(1.234, 1234.5))).containsExactly("1.23", "1235");
    assertThat(Spread.ratios(List.of(2.0, 4.0), List.of(3.0, 2.0))).containsExactly(1.5, 0.5);
  }
}

package dev.riffle.format.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;

class IoEngineTest {
  @Test
  void runsEveryTaskOnceWithAtMostInFlightAtATime() throws IOException {
    for (int inFlight : new int[] {1, 2, 16, 64}) {
      IoEngine e = IoEngine.shared(inFlight);
      for (int tasks : new int[] {0, 1, 3, 100, 1000}) {
        AtomicIntegerArray ran = new AtomicIntegerArray(tasks);
        AtomicInteger running = new AtomicInteger();
        AtomicInteger peak = new AtomicInteger();
        Set<Integer> workers = ConcurrentHashMap.newKeySet();
        e.run(
            tasks,
            (i, w) -> {
              int now = running.incrementAndGet();
              peak.accumulateAndGet(now, Math::max);
              assertThat(w).isBetween(0, e.workersFor(tasks) - 1);
              workers.add(w);
              ran.incrementAndGet(i);
              try {
                Thread.sleep(0, 100_000);
              } catch (InterruptedException x) {
                throw new IOException(x);
              }
              running.decrementAndGet();
            });
        for (int i = 0; i < tasks; i++) {
          assertThat(ran.get(i)).as("task %d of %d at %d", i, tasks, inFlight).isEqualTo(1);
        }
        assertThat(peak.get()).isLessThanOrEqualTo(Math.max(1, inFlight));
      }
    }
  }

  @Test
  void aBatchAmongAsManyCallersAsReadsInFlightRunsInItsOwnThread() throws Exception {
    IoEngine e = IoEngine.create(4);
    CountDownLatch inside = new CountDownLatch(3);
    CountDownLatch release = new CountDownLatch(1);
    ExecutorService callers = Executors.newFixedThreadPool(3);
    try {
      List<Future<?>> blocked = new ArrayList<>();
      for (int c = 0; c < 3; c++) {
        blocked.add(
            callers.submit(
                () -> {
                  AtomicInteger first = new AtomicInteger();
                  e.run(
                      8,
                      (i, w) -> {
                        if (first.getAndIncrement() == 0) {
                          inside.countDown();
                        }
                        try {
                          release.await();
                        } catch (InterruptedException x) {
                          throw new IOException(x);
                        }
                      });
                  return null;
                }));
      }
      assertThat(inside.await(30, TimeUnit.SECONDS)).isTrue();
      // Three callers are inside run: a fourth one of an engine of 4 asks for no helper.
      Thread me = Thread.currentThread();
      Set<Thread> ran = ConcurrentHashMap.newKeySet();
      e.run(100, (i, w) -> ran.add(Thread.currentThread()));
      assertThat(ran).containsExactly(me);
      release.countDown();
      for (Future<?> f : blocked) {
        f.get(30, TimeUnit.SECONDS);
      }
    } finally {
      release.countDown();
      callers.shutdown();
      e.close();
    }
  }

  @Test
  void synchronousEngineRunsInTheCallersThread() throws IOException {
    Thread me = Thread.currentThread();
    IoEngine.synchronous().run(10, (i, w) -> assertThat(Thread.currentThread()).isSameAs(me));
    assertThat(IoEngine.shared(1)).isSameAs(IoEngine.synchronous());
  }

  @Test
  void theFirstFailureIsRethrownAfterAllTasksEnd() {
    IoEngine e = IoEngine.shared(8);
    AtomicInteger running = new AtomicInteger();
    assertThatThrownBy(
            () ->
                e.run(
                    200,
                    (i, w) -> {
                      running.incrementAndGet();
                      try {
                        if (i == 37) {
                          throw new IOException("boom " + i);
                        }
                      } finally {
                        running.decrementAndGet();
                      }
                    }))
        .isInstanceOf(IOException.class)
        .hasMessage("boom 37");
    assertThat(running.get()).isZero();
    assertThatThrownBy(
            () ->
                e.run(
                    5,
                    (i, w) -> {
                      throw new IllegalStateException("x");
                    }))
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void aClosedPrivateEngineStillCompletesOnTheCaller() throws IOException {
    IoEngine e = IoEngine.create(4);
    e.close();
    AtomicInteger n = new AtomicInteger();
    e.run(50, (i, w) -> n.incrementAndGet());
    assertThat(n.get()).isEqualTo(50);
    assertThatThrownBy(() -> IoEngine.create(0)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void alignedBuffersAreAligned() {
    for (int n : new int[] {1, 4095, 4096, 4097, 100_000}) {
      var b = IoEngine.allocateAligned(n, 4096);
      assertThat(b.isDirect()).isTrue();
      assertThat(b.alignmentOffset(0, 4096)).isZero();
      assertThat(b.remaining()).isEqualTo(n);
    }
  }
}

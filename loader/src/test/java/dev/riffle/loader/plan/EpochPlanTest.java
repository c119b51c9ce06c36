package dev.riffle.loader.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.riffle.format.testing.Seed;
import dev.riffle.format.testing.SeedExtension;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(SeedExtension.class)
class EpochPlanTest {

  static List<Sampler> samplers(SplittableRandom r) {
    int b = 1 + r.nextInt(40);
    int f = 1 + r.nextInt(8);
    return List.of(
        new Sequential(f, b),
        new TrueRandom(f, b),
        BlockShuffle.of(b, f),
        new BlockShuffle(b, f, 0.25, false),
        new BlockShuffle(b, f, 0.25, true),
        new RollingPool(b, 2 + r.nextInt(3000), f, 0.25));
  }

  @Test
  void everyRowExactlyOncePerEpochOverTheUnionOfRanks(@Seed long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    for (int trial = 0; trial < 12; trial++) {
      long n = r.nextInt(5000);
      int world = 1 << r.nextInt(3);
      int g = world * (1 + r.nextInt(40));
      for (Sampler s : samplers(r)) {
        for (Tail tail : Tail.values()) {
          EpochPlan plan = EpochPlan.create(s, n, g, r.nextLong(), r.nextInt(5), tail);
          String what = s.describe() + " n=" + n + " G=" + g + " " + tail;
          int[] count = new int[(int) n];
          long padding = 0;
          for (long t = 0; t < plan.batchCount(); t++) {
            for (int rank = 0; rank < world; rank++) {
              long[] slice = plan.slice(t, rank, world);
              assertThat(slice).as(what).hasSize(g / world);
              long start = plan.sliceStart(t, rank, world);
              for (int i = 0; i < slice.length; i++) {
                if (plan.isPadding(start + i)) {
                  padding++;
                } else {
                  count[(int) slice[i]]++;
                }
              }
            }
          }
          assertThat(padding).as(what).isEqualTo(plan.paddedRows());
          long seen = Arrays.stream(count).filter(c -> c == 1).count();
          assertThat(Arrays.stream(count).max().orElse(0)).as(what).isLessThanOrEqualTo(1);
          assertThat(seen).as(what).isEqualTo(n - plan.droppedRows());
          long perRank = 0;
          for (int rank = 0; rank < world; rank++) {
            perRank += plan.rowsOfRank(rank, world);
          }
          assertThat(perRank).as(what).isEqualTo(n - plan.droppedRows());
        }
      }
    }
  }

  @Test
  void ranksGetEqualBatchCountsAndSlicesOfTheSameGlobalBatches() {
    Sampler s = new BlockShuffle(16, 4, 0.25, false);
    EpochPlan plan = EpochPlan.create(s, 10_007, 64, 42, 3, Tail.PAD);
    for (int world : new int[] {1, 2, 4, 8, 16, 32, 64}) {
      for (long t = 0; t < plan.batchCount(); t++) {
        List<Long> joined = new ArrayList<>();
        for (int rank = 0; rank < world; rank++) {
          for (long p : plan.slice(t, rank, world)) {
            joined.add(p);
          }
        }
        assertThat(joined)
            .containsExactly(Arrays.stream(plan.batch(t)).boxed().toArray(Long[]::new));
      }
    }
    assertThatThrownBy(() -> plan.slice(0, 0, 3))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("world size 3 does not divide the global batch of 64");
  }

  @Test
  void reblocksEveryEpoch() {
    BlockShuffle s = new BlockShuffle(16, 4, 0.25, false);
    EpochOrder e0 = s.order(100_000, 64, 7, 0);
    EpochOrder e1 = s.order(100_000, 64, 7, 1);
    // Pairs of neighbouring rows that share a block in both epochs: without re-blocking all
    // (b−1)/b of them would; with a fresh phase about (b−1)/b · (b−1)/b · ... far fewer.
    long both = 0;
    long first = 0;
    for (long p = 0; p + 8 < 100_000; p += 8) {
      boolean a = e0.blockOf(p) == e0.blockOf(p + 8);
      boolean b = e1.blockOf(p) == e1.blockOf(p + 8);
      first += a ? 1 : 0;
      both += a && b ? 1 : 0;
    }
    assertThat(both).isLessThan(first * 9 / 10);
    assertThat(e0.at(0)).isNotEqualTo(e1.at(0));
  }

  @Test
  void samePlanForSameInputsAndDifferentForOtherSeeds() {
    Sampler s = new BlockShuffle(8, 16, 0.25, true);
    EpochPlan a = EpochPlan.create(s, 50_000, 128, 99, 2, Tail.DROP);
    EpochPlan b = EpochPlan.create(s, 50_000, 128, 99, 2, Tail.DROP);
    EpochPlan c = EpochPlan.create(s, 50_000, 128, 100, 2, Tail.DROP);
    assertThat(PlanHashes.of(a)).isEqualTo(PlanHashes.of(b)).isNotEqualTo(PlanHashes.of(c));
  }

  @Test
  void anyBatchIsComputedWithoutTheOnesBefore() {
    // O(1) resume: batch t computed cold equals batch t computed after 0..t-1.
    Sampler s = new RollingPool(16, 4096, 4, 0.25);
    EpochPlan plan = EpochPlan.create(s, 1_000_003, 64, 5, 0, Tail.PAD);
    long last = plan.batchCount() - 1;
    long[] cold = EpochPlan.create(s, 1_000_003, 64, 5, 0, Tail.PAD).batch(last);
    assertThat(plan.batch(last)).isEqualTo(cold);
  }

  @Test
  void stateRoundTripsThroughJsonAndRefusesOtherParameters() {
    Sampler s = BlockShuffle.of(16, 256);
    LoaderState st = LoaderState.start(3, "train", 42, 1, 64, Tail.PAD, s).at(1, 17);
    String json = st.toJson();
    assertThat(json.length()).isLessThan(200);
    assertThat(LoaderState.fromJson(json)).isEqualTo(st);
    st.check(s, 3, "train");
    assertThatThrownBy(() -> st.check(BlockShuffle.of(16, 128), 3, "train"))
        .hasMessageContaining("other sampler parameters");
    assertThatThrownBy(() -> st.check(s, 4, "train")).hasMessageContaining("version 3, not 4");
    assertThatThrownBy(() -> LoaderState.fromJson("{\"x\":1"))
        .isInstanceOf(IllegalArgumentException.class);
  }
}

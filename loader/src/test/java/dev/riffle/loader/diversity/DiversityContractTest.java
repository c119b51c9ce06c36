package dev.riffle.loader.diversity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class DiversityContractTest {

  @Test
  void modelMatchesThePublishedTable() {
    // Research brief §3.1 and §3.2, m = 64.
    assertThat(DiversityModel.pi2(16, 64, 16)).isCloseTo(0.0147, within(0.0001));
    assertThat(DiversityModel.pi2(64, 64, 16)).isCloseTo(0.0616, within(0.0001));
    assertThat(DiversityModel.expectedDistinctBlocks(16, 64, 16)).isCloseTo(41.39, within(0.01));
    assertThat(DiversityModel.expectedDistinctBlocks(4, 64, 16)).isCloseTo(58.32, within(0.01));
    assertThat(DiversityModel.expectedDistinctBlocks(64, 64, 16)).isCloseTo(15.78, within(0.01));
    assertThat(DiversityModel.meffOverM(64, DiversityModel.pi2(16, 64, 16)))
        .isCloseTo(33.3 / 64, within(0.002));
  }

  @Test
  void derivesTheSmallestFetchFactor() {
    DiversityContract.Resolution r =
        DiversityContract.pi2AtMost(0.001).fetchFactor(16, 64, 1, 1000, 1L << 40, 2);
    assertThat(r.pi2()).isLessThanOrEqualTo(0.001);
    assertThat(DiversityModel.pi2(16, 64, r.fetchBatches() - 1)).isGreaterThan(0.001);
    DiversityContract.Resolution g =
        DiversityContract.meffOverMAtLeast(0.95).fetchFactor(16, 64, 1, 1000, 1L << 40, 2);
    assertThat(g.meffOverM()).isGreaterThanOrEqualTo(0.95);
    assertThat(DiversityModel.meffOverM(64, DiversityModel.pi2(16, 64, g.fetchBatches() - 1)))
        .isLessThan(0.95);
    DiversityContract.Resolution d =
        DiversityContract.distinctBlocksAtLeast(60).fetchFactor(16, 64, 1, 1000, 1L << 40, 2);
    assertThat(d.distinctBlocks()).isGreaterThanOrEqualTo(60);
    assertThat(DiversityModel.expectedDistinctBlocks(16, 64, d.fetchBatches() - 1)).isLessThan(60);
    assertThat(DiversityContract.pi2AtMost(0.004).poolRows(16, 64, 1, 1000, 1L << 40, 2).pi2())
        .isLessThanOrEqualTo(0.004);
  }

  @Test
  void failsFastNamingTheNumbers() {
    assertThatThrownBy(
            () ->
                DiversityContract.meffOverMAtLeast(0.95)
                    .fetchFactor(16, 64, 1, 12_000, 64L << 20, 2))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("m_eff/m ≥ 0.95")
        .hasMessageContaining("f ≥ 281")
        .hasMessageContaining("12,000 bytes per row")
        .hasMessageContaining("memory budget of 67,108,864 bytes")
        .hasMessageContaining("the budget allows f ≤ 17");
    assertThatThrownBy(
            () ->
                DiversityContract.distinctBlocksAtLeast(65).fetchFactor(16, 64, 1, 1, 1L << 40, 2))
        .hasMessageContaining("cannot be met");
    // Targets that need a window or pool beyond any memory: refused at once (the search ran on
    // past the end of a long, forever, for π₂ ≤ 1e-30), and a memory figure that does not wrap.
    assertThatThrownBy(
            () -> DiversityContract.pi2AtMost(1e-300).fetchFactor(16, 64, 1, 1, Long.MAX_VALUE, 2))
        .hasMessage(
            "diversity target π₂ ≤ 1e-300 cannot be met: it needs a window of more than"
                + " 1,125,899,906,842,624 rows (2^50)");
    assertThatThrownBy(
            () -> DiversityContract.pi2AtMost(1e-30).poolRows(16, 64, 1, 1, Long.MAX_VALUE, 2))
        .hasMessageContaining("cannot be met: it needs a pool of more than");
    assertThat(
            DiversityContract.pi2AtMost(1e-13)
                .fetchFactor(16, 64, 1, 1 << 20, Long.MAX_VALUE, 2)
                .memoryBytes())
        .isEqualTo(Long.MAX_VALUE);
    // The target as typed, not as Java writes a double (1.0E9).
    assertThatThrownBy(
            () ->
                DiversityContract.distinctBlocksAtLeast(1e9).fetchFactor(16, 64, 1, 1, 1L << 40, 2))
        .hasMessage(
            "diversity target E[distinct blocks] ≥ 1,000,000,000 cannot be met: a batch of 64 rows"
                + " holds at most 64 distinct blocks");
  }

  private static org.assertj.core.data.Offset<Double> within(double d) {
    return org.assertj.core.data.Offset.offset(d);
  }
}

package dev.riffle.format.encoding;

/**
 * One sector codec's encoding of a page's rows (a {@link PageRows} it was made for): how many rows
 * its greedy plain sector takes, and its payload for a given run of rows. {@link SectorEncoder}
 * chooses the runs; the encoder only answers for one codec.
 */
interface PayloadEncoder {
  /**
   * Rows of the greedy plain sector starting at {@code row}: as many as still fit {@link
   * dev.riffle.format.SectorLayout#PAYLOAD_BYTES}, at least one, at most {@link
   * dev.riffle.format.SectorLayout#MAX_ROWS}.
   *
   * @param valid the index of the first valid record at or after {@code row}
   * @throws IllegalArgumentException if the row at {@code row} alone does not fit a sector
   */
  int plainRows(int row, int valid);

  /**
   * Builds the payload of rows [row, row + n) (whose first valid record is {@code valid}) into
   * {@code p}.
   *
   * @return false, leaving {@code p} as it was, if it is larger than a compressed sector may
   *     inflate to ({@link dev.riffle.format.SectorLayout#MAX_ZSTD_PAYLOAD_BYTES})
   */
  boolean build(int row, int valid, int n, SectorPayload p);
}

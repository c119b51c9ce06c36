package dev.riffle.hadoop;

import dev.riffle.format.io.RandomAccessSource.Range;
import java.util.ArrayList;
import java.util.List;

/**
 * How many bytes between two ranges are worth fetching to save a request: ranges closer than {@code
 * gapBytes} (and overlapping ones, always) join one fetch, up to {@code maxBytes} per fetch.
 *
 * @param gapBytes largest gap read through (default 1 MiB for object stores, 16 KiB for local
 *     files)
 * @param maxBytes largest fetch built by joining ranges (a single range may be larger)
 */
record RangeCoalescing(long gapBytes, long maxBytes) {
  static final long DEFAULT_REMOTE_GAP = 1 << 20;
  static final long DEFAULT_LOCAL_GAP = 16 << 10;
  static final long DEFAULT_MAX = 16 << 20;

  RangeCoalescing {
    if (gapBytes < 0 || maxBytes < 1) {
      throw new IllegalArgumentException(
          "coalescing gap must be >= 0 and the largest fetch >= 1: " + gapBytes + ", " + maxBytes);
    }
  }

  /** One fetch: [start, end) covering its members. */
  record Group(long start, long end, List<Range> members) {}

  /** Groups ranges sorted by offset (none empty). */
  List<Group> group(List<Range> sorted) {
    List<Group> groups = new ArrayList<>();
    long start = -1;
    long end = -1;
    List<Range> members = null;
    for (Range r : sorted) {
      long rEnd = r.offset() + r.dst().remaining();
      boolean overlaps = members != null && r.offset() < end;
      boolean joins =
          members != null
              && r.offset() - end <= gapBytes
              && Math.max(end, rEnd) - start <= maxBytes;
      if (overlaps || joins) {
        end = Math.max(end, rEnd);
        members.add(r);
      } else {
        if (members != null) {
          groups.add(new Group(start, end, members));
        }
        start = r.offset();
        end = rEnd;
        members = new ArrayList<>();
        members.add(r);
      }
    }
    if (members != null) {
      groups.add(new Group(start, end, members));
    }
    return groups;
  }
}

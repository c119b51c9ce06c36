package dev.riffle.loader.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import dev.riffle.dataset.Manifest;
import java.util.List;
import java.util.stream.LongStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.junit.jupiter.api.Test;

/** How a fetch is cut into takes, and how its bytes are counted. */
class LoaderChunkingTest {
  private static Manifest.DataFile file(long first, long rows) {
    return new Manifest.DataFile("f" + first, 1, "", rows, first, null);
  }

  @Test
  void chunksNeverSpanFilesAndHoldAtMostTheCap() {
    List<Manifest.DataFile> files = List.of(file(0, 100), file(100, 0), file(100, 50));
    long[] unique = LongStream.range(0, 150).filter(r -> r % 3 != 0).toArray();
    int[] starts = Fetch.chunks(unique, files, 20);
    assertThat(starts[0]).isZero();
    assertThat(starts[starts.length - 1]).isEqualTo(unique.length);
    for (int c = 0; c + 1 < starts.length; c++) {
      int from = starts[c];
      int to = starts[c + 1];
      assertThat(to - from).isBetween(1, 20);
      assertThat(unique[from] < 100).isEqualTo(unique[to - 1] < 100);
    }
    // 66 rows in the first file: 4 chunks of 16 or 17; 34 in the last: 2 chunks of 17.
    assertThat(starts).containsExactly(0, 16, 33, 49, 66, 83, 100);
    assertThat(Fetch.chunks(new long[0], files, 20)).containsExactly(0);
    assertThat(Fetch.chunks(unique, files, Integer.MAX_VALUE)).containsExactly(0, 66, 100);
  }

  @Test
  void allocatedCountsEveryAllocationOnceAsTheAllocatorDoes() {
    try (BufferAllocator root = new RootAllocator();
        BufferAllocator a = root.newChildAllocator("batch", 0, Long.MAX_VALUE)) {
      IntVector ints = new IntVector("i", a);
      ListVector lists = ListVector.empty("l", a);
      lists.addOrGetVector(FieldType.notNullable(new ArrowType.Int(32, true)));
      try (VectorSchemaRoot batch = new VectorSchemaRoot(List.of(ints, lists))) {
        ints.allocateNew(1000);
        ints.setValueCount(1000);
        lists.setInitialCapacity(64);
        lists.allocateNew();
        IntVector child = (IntVector) lists.getDataVector();
        child.allocateNew(64 * 1500);
        child.setValueCount(64 * 1500);
        lists.setValueCount(64);
        batch.setRowCount(64);
        assertThat(RowBytes.allocated(batch)).isEqualTo(a.getAllocatedMemory());
      }
    }
  }
}

package dev.riffle.djl;

import static org.assertj.core.api.Assertions.assertThat;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.training.dataset.Batch;
import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.storage.LocalStorage;
import dev.riffle.loader.pipeline.LoaderOptions;
import dev.riffle.loader.plan.BlockShuffle;
import dev.riffle.loader.plan.Tail;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The copies' buffers: wrapped by the engine without a second copy, and reused batch to batch. */
class BatchBuffersTest {
  @TempDir static Path dir;
  static Path cells;

  @BeforeAll
  static void writeCells() throws IOException {
    cells = dir.resolve("cells");
    CellsDatasets.write(cells, 400, 100, 5, CellsDatasets.Order.CELL_TYPE, 0.8);
    OfflineEngine.start();
  }

  @Test
  void theEngineWrapsADirectBufferWithoutACopy() {
    try (BufferAllocator a = new RootAllocator();
        ArrowBuf b = a.buffer(16);
        NDManager m = NDManager.newBaseManager()) {
      b.setFloat(0, 1f);
      b.setFloat(4, 2f);
      ByteBuffer nio = b.nioBuffer(0, 8).order(ByteOrder.nativeOrder());
      assertThat(nio.isDirect()).isTrue();
      assertThat(nio.order()).isEqualTo(ByteOrder.nativeOrder());
      NDArray x = m.create(nio, new Shape(2), DataType.FLOAT32);
      // Written after the array was made: seen through it only if the engine kept the buffer.
      b.setFloat(4, 7f);
      assertThat(x.toFloatArray()).containsExactly(1f, 7f);
      x.close();
    }
  }

  @Test
  void aBufferGivenBackIsTakenAgainAndCloseFreesThem() {
    try (BufferAllocator a = new RootAllocator()) {
      try (BatchBuffers pool = new BatchBuffers(a)) {
        long address;
        try (NDManager m = NDManager.newBaseManager()) {
          address = pool.lease(m).take(1000).memoryAddress();
          assertThat(pool.kept()).isZero();
        }
        assertThat(pool.kept()).isEqualTo(1);
        try (NDManager m = NDManager.newBaseManager()) {
          BatchBuffers.Lease l = pool.lease(m);
          assertThat(l.take(900).memoryAddress()).isEqualTo(address);
          // The one free buffer is this batch's now: a new one.
          assertThat(l.take(3000).memoryAddress()).isNotEqualTo(address);
        }
        assertThat(pool.allocated()).isEqualTo(2);
        try (NDManager m = NDManager.newBaseManager()) {
          assertThat(pool.lease(m).take(100).memoryAddress()).isNotEqualTo(address);
        }
        assertThat(pool.allocated()).isEqualTo(3);
        assertThat(a.getAllocatedMemory()).isPositive();
      }
      assertThat(a.getAllocatedMemory()).isZero();
    }
  }

  @Test
  void aRunAllocatesAFewBuffersAndReusesThem() throws IOException {
    LoaderOptions o =
        new LoaderOptions(
            new BlockShuffle(4, 3, 0.25, false),
            16,
            3,
            3,
            0,
            1,
            Tail.PAD,
            null,
            null,
            2,
            2,
            64L << 20);
    try (BufferAllocator reads = new RootAllocator();
        BufferAllocator batches = new RootAllocator();
        Dataset d = Dataset.open(new LocalStorage(cells), reads);
        NDManager manager = NDManager.newBaseManager()) {
      long n = 0;
      try (RiffleDataset ds =
          RiffleDataset.builder(d.all())
              .options(o)
              .sparse("indices", "values", 100)
              .label("cell_type")
              .normalization(Normalization.librarySize(1e4))
              .allocator(batches)
              .build()) {
        for (int e = 0; e < 3; e++) {
          for (Batch b : ds.getData(manager)) {
            b.close();
            n++;
          }
        }
        assertThat(n).isEqualTo(3 * 25);
        // Two copies a batch (features, labels); at most four batches out at once: one being
        // converted, two queued, one with the trainer.
        assertThat(ds.buffers().allocated()).isBetween(2L, 8L);
      }
      assertThat(batches.getAllocatedMemory()).isZero();
    }
  }
}

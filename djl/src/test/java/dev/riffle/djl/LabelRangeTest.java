package dev.riffle.djl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ai.djl.ndarray.NDManager;
import ai.djl.training.dataset.Batch;
import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.storage.LocalStorage;
import dev.riffle.dataset.write.DatasetOptions;
import dev.riffle.dataset.write.DatasetWriter;
import dev.riffle.loader.pipeline.LoaderOptions;
import dev.riffle.loader.plan.Sequential;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Integer labels (not categorical codes) are checked against the number of classes: a value out of
 * range names the column, row and value instead of reaching the loss as a wrong class.
 */
class LabelRangeTest {
  static final int ROWS = 100;

  @TempDir static Path dir;

  BufferAllocator reads;
  BufferAllocator batches;
  Dataset dataset;
  NDManager manager;

  /** Row r: x = r, label = r mod 3, except row 57 (7) and row 58 (-1). */
  static int label(int r) {
    return r == 57 ? 7 : r == 58 ? -1 : r % 3;
  }

  @BeforeAll
  static void write() throws IOException {
    Schema schema =
        new Schema(
            List.of(
                Field.notNullable("x", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)),
                Field.notNullable("label", new ArrowType.Int(32, true))));
    try (BufferAllocator a = new RootAllocator();
        DatasetWriter w =
            DatasetWriter.create(
                new LocalStorage(dir.resolve("labels")), schema, null, DatasetOptions.defaults());
        VectorSchemaRoot root = VectorSchemaRoot.create(schema, a)) {
      root.allocateNew();
      Float4Vector x = (Float4Vector) root.getVector("x");
      IntVector label = (IntVector) root.getVector("label");
      for (int r = 0; r < ROWS; r++) {
        x.setSafe(r, r);
        label.setSafe(r, label(r));
      }
      root.setRowCount(ROWS);
      w.write(root);
      w.publish();
    }
    OfflineEngine.start();
  }

  @BeforeEach
  void open() throws IOException {
    reads = new RootAllocator();
    batches = new RootAllocator();
    dataset = Dataset.open(new LocalStorage(dir.resolve("labels")), reads);
    manager = NDManager.newBaseManager();
  }

  @AfterEach
  void close() throws IOException {
    manager.close();
    dataset.close();
    batches.close();
    reads.close();
  }

  RiffleDataset.Builder builder() {
    return RiffleDataset.builder(dataset.all())
        .options(LoaderOptions.of(new Sequential(20, 4), 10, 1))
        .dense("x")
        .allocator(batches);
  }

  /** The labels of every batch until one fails, then that failure's message. */
  String run(RiffleDataset ds, List<Long> labels) throws IOException {
    try {
      for (Batch b : ds.getData(manager)) {
        try (b) {
          for (long l : b.getLabels().head().toLongArray()) {
            labels.add(l);
          }
        }
      }
      return null;
    } catch (IllegalArgumentException e) {
      return e.getMessage();
    }
  }

  @Test
  void aLabelAtOrAboveTheClassesNamesColumnRowAndValue() throws IOException {
    List<Long> labels = new ArrayList<>();
    try (RiffleDataset ds = builder().label("label", 3).build()) {
      assertThat(run(ds, labels))
          .isEqualTo(
              "label column 'label' holds 7 at row 57, outside [0, 3), the number of classes"
                  + " given");
    }
    // The batches before the bad one were handed out, with their labels.
    assertThat(labels).hasSize(50);
    for (int r = 0; r < 50; r++) {
      assertThat(labels.get(r)).isEqualTo(label(r));
    }
  }

  @Test
  void aNegativeLabelNamesColumnRowAndValue() throws IOException {
    List<Long> labels = new ArrayList<>();
    try (RiffleDataset ds = builder().label("label", 8).build()) {
      assertThat(run(ds, labels))
          .isEqualTo(
              "label column 'label' holds -1 at row 58, outside [0, 8), the number of classes"
                  + " given");
    }
  }

  @Test
  void anIntegerLabelWithoutItsClassesIsRefused() {
    assertThatThrownBy(() -> builder().label("label").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(
            "label column 'label' holds integers, not categorical codes: give its number of"
                + " classes");
    assertThatThrownBy(() -> builder().label("label", 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("label column 'label': the number of classes must be positive, not 0");
  }

  @Test
  void theRandomAccessFormChecksToo() throws Exception {
    try (RiffleRandomAccessDataset ds =
        RiffleRandomAccessDataset.builder(dataset.all())
            .dense("x")
            .label("label", 3)
            .allocator(batches)
            .setSampling(4, false)
            .build()) {
      // Records live in the manager passed in: closed before the dataset, as DJL's batches are.
      try (NDManager records = manager.newSubManager()) {
        assertThat(ds.get(records, 56).getLabels().head().getLong()).isEqualTo(2);
        assertThatThrownBy(() -> ds.get(records, 57))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessage(
                "label column 'label' holds 7 at row 57, outside [0, 3), the number of classes"
                    + " given");
      }
    }
  }

  @Test
  void theRandomAccessFormRefusesCsr() {
    assertThatThrownBy(
            () ->
                RiffleRandomAccessDataset.builder(dataset.all())
                    .csr("x", "label", 3)
                    .allocator(batches)
                    .setSampling(4, false)
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("feature 'x' is kept as CSR");
  }
}

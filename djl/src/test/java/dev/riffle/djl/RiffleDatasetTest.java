package dev.riffle.djl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.training.dataset.Batch;
import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.DatasetView;
import dev.riffle.dataset.storage.LocalStorage;
import dev.riffle.loader.pipeline.Loader;
import dev.riffle.loader.pipeline.LoaderOptions;
import dev.riffle.loader.pipeline.SparseRows;
import dev.riffle.loader.plan.BlockShuffle;
import dev.riffle.loader.plan.LoaderState;
import dev.riffle.loader.plan.Tail;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The adapter against the loader itself, on cells from the real generator: the same batches row for
 * row and value for value, resume, normalisation, the CSR form, errors that name the column, and no
 * leaked memory.
 */
class RiffleDatasetTest {
  static final int ROWS = 600;
  static final int GENES = 200;

  @TempDir static Path dir;
  static Path cells;

  BufferAllocator reads;
  BufferAllocator batches;
  Dataset dataset;
  NDManager manager;

  @BeforeAll
  static void writeCells() throws IOException {
    cells = dir.resolve("cells");
    CellsDatasets.write(cells, ROWS, GENES, 7, CellsDatasets.Order.CELL_TYPE, 0.8);
    OfflineEngine.start();
  }

  @BeforeEach
  void open() throws IOException {
    reads = new RootAllocator();
    batches = new RootAllocator();
    dataset = Dataset.open(new LocalStorage(cells), reads);
    manager = NDManager.newBaseManager();
  }

  @AfterEach
  void close() throws IOException {
    manager.close();
    dataset.close();
    // A leaked Arrow buffer (a batch or a copy not freed) fails the test here.
    batches.close();
    reads.close();
  }

  static LoaderOptions options(long epochs) {
    return new LoaderOptions(
        new BlockShuffle(4, 3, 0.25, false),
        32,
        11,
        epochs,
        0,
        1,
        Tail.PAD,
        null,
        null,
        2,
        2,
        64L << 20);
  }

  RiffleDataset.Builder builder(DatasetView view, LoaderOptions o) {
    return RiffleDataset.builder(view)
        .options(o)
        .sparse("indices", "values", GENES)
        .label("cell_type")
        .allocator(batches);
  }

  @Test
  void batchesAreTheLoadersRowForRowAndValueForValue() throws IOException {
    DatasetView view = dataset.split(CellsDatasets.TRAIN);
    LoaderOptions o = options(2);
    List<float[]> want = new ArrayList<>();
    List<long[]> wantLabels = new ArrayList<>();
    List<long[]> wantRows = new ArrayList<>();
    try (Loader loader =
        Loader.open(view, o.withFields(List.of("indices", "values", "cell_type")), batches)) {
      while (true) {
        try (VectorSchemaRoot b = loader.next()) {
          if (b == null) {
            break;
          }
          want.add(SparseRows.of(b, "indices", "values").dense(GENES));
          BaseIntVector codes = (BaseIntVector) b.getVector("cell_type");
          long[] l = new long[b.getRowCount()];
          for (int i = 0; i < l.length; i++) {
            l[i] = codes.getValueAsLong(i);
          }
          wantLabels.add(l);
          wantRows.add(loader.lastRows());
        }
      }
    }
    int k = 0;
    try (RiffleDataset ds = builder(view, o).build()) {
      for (int epoch = 0; epoch < 2; epoch++) {
        for (Batch b : ds.getData(manager)) {
          try (b) {
            NDArray x = b.getData().singletonOrThrow();
            NDArray y = b.getLabels().singletonOrThrow();
            assertThat(x.getDataType()).isEqualTo(DataType.FLOAT32);
            assertThat(x.getShape().getShape()).containsExactly(32, GENES);
            assertThat(y.getDataType()).isEqualTo(DataType.INT64);
            assertThat(x.toFloatArray()).isEqualTo(want.get(k));
            assertThat(y.toLongArray()).isEqualTo(wantLabels.get(k));
            assertThat(b.getIndices()).isEqualTo(boxed(wantRows.get(k)));
            k++;
          }
        }
      }
      assertThat(ds.finished()).isTrue();
      assertThatThrownBy(() -> ds.getData(manager))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("all 2 epochs");
      assertThat(ds.epochStats()).hasSize(2);
      assertThat(ds.epochStats().get(0).rows()).isEqualTo((long) want.size() / 2 * 32);
    }
    assertThat(k).isEqualTo(want.size());
    assertThat(batches.getAllocatedMemory()).isZero();
  }

  private static List<Long> boxed(long[] a) {
    return Arrays.stream(a).boxed().toList();
  }

  @Test
  void csrFormHoldsTheSameEntriesAsTheLoader() throws IOException {
    DatasetView view = dataset.all();
    LoaderOptions o = options(1);
    List<SparseRows> want = new ArrayList<>();
    try (Loader loader =
        Loader.open(view, o.withFields(List.of("indices", "values", "cell_type")), batches)) {
      for (VectorSchemaRoot b = loader.next(); b != null; b = loader.next()) {
        want.add(SparseRows.of(b, "indices", "values"));
        b.close();
      }
    }
    try (RiffleDataset ds =
        RiffleDataset.builder(view)
            .options(o)
            .csr("indices", "values", GENES)
            .label("cell_type")
            .allocator(batches)
            .build()) {
      int k = 0;
      for (Batch b : ds.getData(manager)) {
        try (b) {
          assertThat(b.getData()).hasSize(3);
          assertThat(b.getData().get(0).toIntArray()).isEqualTo(want.get(k).indptr());
          assertThat(b.getData().get(1).toIntArray()).isEqualTo(want.get(k).indices());
          assertThat(b.getData().get(2).toFloatArray()).isEqualTo(want.get(k).values());
          k++;
        }
      }
      assertThat(k).isEqualTo(want.size());
    }
  }

  @Test
  void normalisationIsLibrarySizeThenLog1p() throws IOException {
    DatasetView view = dataset.all();
    try (RiffleDataset raw = builder(view, options(1)).build();
        RiffleDataset norm =
            builder(view, options(1)).normalization(Normalization.librarySizeLog1p(1e4)).build()) {
      Batch a = raw.getData(manager).iterator().next();
      Batch b = norm.getData(manager).iterator().next();
      try (a;
          b) {
        float[] x = a.getData().head().toFloatArray();
        float[] y = b.getData().head().toFloatArray();
        for (int r = 0; r < 32; r++) {
          double sum = 0;
          for (int g = 0; g < GENES; g++) {
            sum += x[r * GENES + g];
          }
          assertThat(sum).isPositive();
          for (int g = 0; g < GENES; g++) {
            float expect = (float) Math.log1p(x[r * GENES + g] * 1e4 / sum);
            // The engine scales and takes the log in float32 (its vectorised log1p is a few ulps
            // off): a relative bound, not an absolute 1e-6 that a value near 9 barely has room for.
            assertThat(y[r * GENES + g])
                .isCloseTo(
                    expect, org.assertj.core.data.Offset.offset(1e-6f + 1e-5f * Math.abs(expect)));
          }
        }
      }
    }
  }

  @Test
  void resumeMidEpochGivesTheSameBatchesBitForBit() throws IOException {
    DatasetView view = dataset.split(CellsDatasets.TRAIN);
    LoaderOptions o = options(2);
    List<long[]> rows = new ArrayList<>();
    List<float[]> values = new ArrayList<>();
    try (RiffleDataset ds = builder(view, o).build()) {
      for (int e = 0; e < 2; e++) {
        for (Batch b : ds.getData(manager)) {
          try (b) {
            rows.add(b.getIndices().stream().mapToLong(x -> (Long) x).toArray());
            values.add(b.getData().head().toFloatArray());
          }
        }
      }
    }
    // Stop after 5 batches of epoch 0; save the state that re-delivers the 5th (what a checkpoint
    // taken before its optimizer step holds), through JSON as a checkpoint stores it.
    String saved;
    try (RiffleDataset ds = builder(view, o).build()) {
      int n = 0;
      for (Batch b : ds.getData(manager)) {
        b.close();
        if (++n == 5) {
          break;
        }
      }
      saved = ds.stateBeforeLastBatch().toJson();
    }
    LoaderState state = LoaderState.fromJson(saved);
    assertThat(state.epoch()).isZero();
    assertThat(state.batchCursor()).isEqualTo(4);
    int k = 4;
    try (RiffleDataset ds = builder(view, o).resumeFrom(state).build()) {
      while (!ds.finished() && ds.state().epoch() < 2) {
        for (Batch b : ds.getData(manager)) {
          try (b) {
            assertThat(b.getIndices().stream().mapToLong(x -> (Long) x).toArray())
                .isEqualTo(rows.get(k));
            assertThat(b.getData().head().toFloatArray()).isEqualTo(values.get(k));
            k++;
          }
        }
      }
    }
    assertThat(k).isEqualTo(rows.size());
  }

  @Test
  void theStateIsTheHandedOutBatchsWhileBatchesAreQueued() throws Exception {
    // The reader thread runs ahead of the trainer; a checkpoint taken now must hold where the
    // trainer is, not where the loader is, and closing must free the queued batches.
    DatasetView view = dataset.split(CellsDatasets.TRAIN);
    LoaderOptions o = options(1);
    List<long[]> rows = new ArrayList<>();
    try (Loader loader =
        Loader.open(view, o.withFields(List.of("indices", "values", "cell_type")), batches)) {
      for (VectorSchemaRoot b; (b = loader.next()) != null; ) {
        b.close();
        rows.add(loader.lastRows());
      }
    }
    for (boolean csr : new boolean[] {false, true}) {
      RiffleDataset.Builder bld =
          csr
              ? RiffleDataset.builder(view)
                  .options(o)
                  .csr("indices", "values", GENES)
                  .label("cell_type")
                  .allocator(batches)
              : builder(view, o);
      LoaderState saved;
      try (RiffleDataset ds = bld.build()) {
        java.util.Iterator<Batch> it = ds.getData(manager).iterator();
        for (int k = 0; k < 3; k++) {
          it.next().close();
        }
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (ds.queued() < 2 && System.nanoTime() < deadline) {
          Thread.sleep(5);
        }
        assertThat(ds.queued()).as("batches converted ahead").isEqualTo(2);
        assertThat(ds.state().epoch()).isZero();
        assertThat(ds.state().batchCursor()).isEqualTo(3);
        assertThat(ds.stateBeforeLastBatch().batchCursor()).isEqualTo(2);
        assertThat(ds.lastRows()).isEqualTo(rows.get(2));
        saved = LoaderState.fromJson(ds.state().toJson());
      } // closes with two batches queued: a leak fails the allocators' close after the test
      try (RiffleDataset ds = bld.resumeFrom(saved).build()) {
        int k = 3;
        for (Batch b : ds.getData(manager)) {
          try (b) {
            assertThat(b.getIndices().stream().mapToLong(x -> (Long) x).toArray())
                .isEqualTo(rows.get(k++));
          }
        }
        assertThat(k).isEqualTo(rows.size());
      }
    }
  }

  @Test
  void easyTrainFitsOnIt() throws Exception {
    // DJL's own loop: one getData() per epoch, for the training and the validation set.
    LoaderOptions test =
        new LoaderOptions(
            new dev.riffle.loader.plan.Sequential(3, 4),
            32,
            11,
            2,
            0,
            1,
            Tail.PAD,
            null,
            null,
            2,
            2,
            64L << 20);
    try (RiffleDataset train = builder(dataset.split(CellsDatasets.TRAIN), options(2)).build();
        RiffleDataset held =
            builder(dataset.split(CellsDatasets.TEST), test).trimPadding(true).build();
        ai.djl.Model model = ai.djl.Model.newInstance("fit")) {
      model.setBlock(ai.djl.nn.core.Linear.builder().setUnits(12).build());
      try (ai.djl.training.Trainer trainer =
          model.newTrainer(
              new ai.djl.training.DefaultTrainingConfig(
                  ai.djl.training.loss.Loss.softmaxCrossEntropyLoss()))) {
        trainer.initialize(new ai.djl.ndarray.types.Shape(32, GENES));
        ai.djl.training.EasyTrain.fit(trainer, 2, train, held);
      }
      assertThat(train.finished()).isTrue();
      assertThat(held.finished()).isTrue();
      assertThat(train.epochStats())
          .extracting(RiffleDataset.EpochStats::epoch)
          .containsExactly(0L, 1L);
      assertThat(held.epochStats())
          .extracting(RiffleDataset.EpochStats::epoch)
          .containsExactly(0L, 1L);
    }
  }

  @Test
  void anOpenBatchFailsTheClose() throws IOException {
    // Its own allocator: the failed close leaves the dataset's child allocator registered in it.
    BufferAllocator own = new RootAllocator();
    RiffleDataset ds =
        RiffleDataset.builder(dataset.all())
            .options(options(1))
            .sparse("indices", "values", GENES)
            .allocator(own)
            .build();
    Batch b = ds.getData(manager).iterator().next();
    assertThat(own.getAllocatedMemory()).isPositive();
    assertThatThrownBy(ds::close)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("leaked");
    b.close();
  }

  @Test
  void badColumnsAreNamed() {
    DatasetView view = dataset.all();
    assertThatThrownBy(() -> builder(view, options(1)).label("values").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("label column 'values'")
        .hasMessageContaining("categorical");
    assertThatThrownBy(
            () ->
                RiffleDataset.builder(view)
                    .options(options(1))
                    .dense("indices")
                    .allocator(batches)
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("column 'indices' is list<int32 not null>; a dense feature");
    assertThatThrownBy(
            () ->
                RiffleDataset.builder(view)
                    .options(options(1))
                    .dense("plate")
                    .allocator(batches)
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("column 'plate' is categorical");
    assertThatThrownBy(
            () ->
                RiffleDataset.builder(view)
                    .options(options(1))
                    .sparse("indices", "nope", GENES)
                    .allocator(batches)
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("no column 'nope' in ");
    assertThatThrownBy(() -> builder(view, options(1)).label("no_such_label").build())
        .hasMessageStartingWith("no column 'no_such_label'");
  }

  /**
   * A string label (Spark's and DuckDB's plain utf8) is refused by the dataset and by LabelNames
   * with the loader's words, which say how to make it categorical.
   */
  @Test
  void aStringLabelSaysHowToMakeItCategorical() throws IOException {
    org.apache.arrow.vector.types.pojo.Schema schema =
        new org.apache.arrow.vector.types.pojo.Schema(
            List.of(
                org.apache.arrow.vector.types.pojo.Field.notNullable(
                    "x",
                    new org.apache.arrow.vector.types.pojo.ArrowType.FloatingPoint(
                        org.apache.arrow.vector.types.FloatingPointPrecision.SINGLE)),
                org.apache.arrow.vector.types.pojo.Field.nullable(
                    "cell type", org.apache.arrow.vector.types.pojo.ArrowType.Utf8.INSTANCE)));
    Path path = dir.resolve("strings");
    try (LocalStorage storage = new LocalStorage(path);
        dev.riffle.dataset.write.DatasetWriter w =
            dev.riffle.dataset.write.DatasetWriter.create(
                storage, schema, null, dev.riffle.dataset.write.DatasetOptions.defaults());
        VectorSchemaRoot root = VectorSchemaRoot.create(schema, reads)) {
      root.allocateNew();
      for (int r = 0; r < 10; r++) {
        ((org.apache.arrow.vector.Float4Vector) root.getVector(0)).setSafe(r, r);
        ((org.apache.arrow.vector.VarCharVector) root.getVector(1))
            .setSafe(r, ("t" + r % 3).getBytes(java.nio.charset.StandardCharsets.UTF_8));
      }
      root.setRowCount(10);
      w.write(root);
      w.publish();
    }
    String words =
        "label column 'cell type' is utf8; it must be categorical (dictionary-encoded) or an"
            + " integer; convert the data with --categorical 'cell type' (riffle convert parquet or"
            + " arrow) to make it one";
    try (Dataset d = Dataset.open(new LocalStorage(path), reads)) {
      assertThatThrownBy(
              () ->
                  RiffleDataset.builder(d.all())
                      .options(options(1))
                      .dense("x")
                      .label("cell type")
                      .allocator(batches)
                      .build())
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage(words);
      assertThatThrownBy(() -> LabelNames.of(d, "cell type")).hasMessage(words);
    }
  }

  /**
   * A list column whose lists all have one length — Spark's array&lt;float&gt;, items declared
   * nullable — is a vector feature: every row's floats as the loader hands them out; a list of
   * another length, or a null item, is an error naming the column and row.
   */
  @Test
  void listsOfOneLengthAreVectors() throws Exception {
    org.apache.arrow.vector.types.pojo.Field item =
        org.apache.arrow.vector.types.pojo.Field.nullable(
            "element",
            new org.apache.arrow.vector.types.pojo.ArrowType.FloatingPoint(
                org.apache.arrow.vector.types.FloatingPointPrecision.SINGLE));
    org.apache.arrow.vector.types.pojo.Schema schema =
        new org.apache.arrow.vector.types.pojo.Schema(
            List.of(
                new org.apache.arrow.vector.types.pojo.Field(
                    "emb",
                    org.apache.arrow.vector.types.pojo.FieldType.notNullable(
                        org.apache.arrow.vector.types.pojo.ArrowType.List.INSTANCE),
                    List.of(item))));
    for (int odd : new int[] {-1, 77, 150}) {
      Path path = dir.resolve("emb-" + odd);
      try (LocalStorage storage = new LocalStorage(path);
          dev.riffle.dataset.write.DatasetWriter w =
              dev.riffle.dataset.write.DatasetWriter.create(
                  storage, schema, null, dev.riffle.dataset.write.DatasetOptions.defaults());
          VectorSchemaRoot root = VectorSchemaRoot.create(schema, reads)) {
        org.apache.arrow.vector.complex.ListVector l =
            (org.apache.arrow.vector.complex.ListVector) root.getVector(0);
        org.apache.arrow.vector.Float4Vector items =
            (org.apache.arrow.vector.Float4Vector) l.getDataVector();
        root.allocateNew();
        for (int r = 0; r < 200; r++) {
          int at = l.startNewValue(r);
          int n = odd == 77 && r == 77 ? 7 : 8;
          for (int k = 0; k < n; k++) {
            if (odd == 150 && r == 150 && k == 2) {
              items.setNull(at + k);
            } else {
              items.setSafe(at + k, r * 10 + k / 1000f);
            }
          }
          l.endValue(r, n);
        }
        l.setValueCount(200);
        root.setRowCount(200);
        w.write(root);
        w.publish();
      }
      try (Dataset d = Dataset.open(new LocalStorage(path), reads);
          RiffleDataset ds =
              RiffleDataset.builder(d.all())
                  .options(options(1))
                  .vector("emb")
                  .allocator(batches)
                  .build()) {
        if (odd < 0) {
          int seen = 0;
          for (ai.djl.training.dataset.Batch b : ds.getData(manager)) {
            try (b) {
              ai.djl.ndarray.NDArray x = b.getData().get(0);
              assertThat(x.getShape().getShape()).containsExactly(32, 8);
              float[] v = x.toFloatArray();
              for (int i = 0; i < 32; i++) {
                float first = v[i * 8];
                int r = Math.round(first / 10);
                for (int k = 0; k < 8; k++) {
                  assertThat(v[i * 8 + k]).isEqualTo(r * 10 + k / 1000f);
                }
              }
              seen++;
            }
          }
          assertThat(seen).isPositive();
        } else {
          assertThatThrownBy(
                  () -> {
                    for (ai.djl.training.dataset.Batch b : ds.getData(manager)) {
                      b.close();
                    }
                  })
              .isInstanceOf(IllegalArgumentException.class)
              .hasMessageContaining("column 'emb' has ")
              .hasMessageContaining(odd == 77 ? "a list of 7 items at row 77" : "null element");
        }
      }
    }
  }

  @Test
  void anIndexPastTheWidthNamesTheColumnAndRow() throws IOException {
    for (boolean csr : new boolean[] {false, true}) {
      RiffleDataset.Builder b = RiffleDataset.builder(dataset.all()).options(options(1));
      try (RiffleDataset ds =
          (csr ? b.csr("indices", "values", 3) : b.sparse("indices", "values", 3))
              .allocator(batches)
              .build()) {
        assertThatThrownBy(() -> ds.getData(manager).iterator().next())
            .as(csr ? "csr" : "dense")
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageMatching("column 'indices' has index \\d+ at row \\d+, outside \\[0, 3\\)");
      }
    }
  }

  @Test
  void randomAccessRecordsAreTheRows() throws Exception {
    DatasetView view = dataset.split(CellsDatasets.TEST);
    try (RiffleRandomAccessDataset ds =
        RiffleRandomAccessDataset.builder(view)
            .sparse("indices", "values", GENES)
            .label("cell_type")
            .allocator(batches)
            .setSampling(16, false)
            .build()) {
      assertThat(ds.size()).isEqualTo(view.rowCount());
      Batch b = ds.getData(manager).iterator().next();
      try (b;
          VectorSchemaRoot first = view.take(new long[] {0, 1, 2}, null)) {
        float[] want = SparseRows.of(first, "indices", "values").dense(GENES);
        float[] got = b.getData().head().toFloatArray();
        assertThat(Arrays.copyOf(got, 3 * GENES)).isEqualTo(want);
        assertThat(b.getData().head().getShape().getShape()).containsExactly(16, GENES);
        assertThat(b.getLabels().head().getShape().getShape()).containsExactly(16);
      }
    }
  }
}

package dev.riffle.djl;

import ai.djl.ndarray.NDManager;
import ai.djl.training.dataset.RandomAccessDataset;
import ai.djl.training.dataset.Record;
import ai.djl.util.Progress;
import dev.riffle.dataset.DatasetView;
import dev.riffle.loader.pipeline.BatchRows;
import java.io.IOException;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * A Riffle view as a DJL {@link RandomAccessDataset}, for stock DJL pipelines that sample
 * themselves ({@code setSampling(batch, shuffle)}, {@code randomSplit}, {@code subDataset}): record
 * i is view position i, read on its own ({@link DatasetView#take} of one row) and copied once into
 * arrays without the batch dimension, which DJL then stacks into a batch (a second copy).
 *
 * <p>The slower path: every row is a separate read and decode, with none of the loader's block
 * reads, coalescing, prefetch or memory budget, and the stacking copies each value again. Use
 * {@link RiffleDataset} for training; this form is for code that must have a {@code
 * RandomAccessDataset}. CSR features have no per-row form and are refused.
 *
 * <p>A record's memory belongs to the manager passed to {@link #get} (DJL's per-batch manager), so
 * it is freed with the batch. Close this dataset (its allocator) when done.
 */
public final class RiffleRandomAccessDataset extends RandomAccessDataset implements AutoCloseable {
  private final DatasetView view;
  private final BatchConverter converter;
  private final BufferAllocator allocator;
  private final BatchBuffers buffers;

  private RiffleRandomAccessDataset(Builder b, BatchConverter converter) {
    super(b);
    this.view = b.view;
    this.converter = converter;
    this.allocator = b.allocator.newChildAllocator("riffle-djl-records", 0, Long.MAX_VALUE);
    this.buffers = new BatchBuffers(allocator);
  }

  public static Builder builder(DatasetView view) {
    return new Builder(view);
  }

  @Override
  public Record get(NDManager manager, long index) throws IOException {
    try (VectorSchemaRoot row = view.take(new long[] {index}, converter.columns())) {
      BatchConverter.Converted c =
          converter.convert(
              BatchRows.of(row, new long[] {view.globalRow(index)}), true, manager, buffers);
      return new Record(c.data(), c.labels());
    }
  }

  @Override
  protected long availableSize() {
    return view.rowCount();
  }

  @Override
  public void prepare(Progress progress) {}

  /** Closes the allocator: fails if a batch is still open. */
  @Override
  public void close() {
    buffers.close();
    allocator.close();
  }

  /**
   * The columns as for {@link RiffleDataset.Builder} (the setters of {@link Columns}, CSR aside);
   * sampling as for any DJL dataset.
   */
  public static final class Builder extends BaseBuilder<Builder> implements Columns<Builder> {
    private final DatasetView view;
    private final ColumnSpec columns = new ColumnSpec();
    private BufferAllocator allocator;

    private Builder(DatasetView view) {
      this.view = view;
    }

    @Override
    public ColumnSpec columns() {
      return columns;
    }

    @Override
    public Builder self() {
      return this;
    }

    public Builder allocator(BufferAllocator a) {
      this.allocator = a;
      return this;
    }

    /**
     * @throws IllegalArgumentException naming the column that is missing or of an unsupported type
     *     (a CSR feature included: a record has no CSR form), or an integer label without its
     *     number of classes
     * @throws NullPointerException if the allocator or the sampling was not given
     */
    public RiffleRandomAccessDataset build() {
      if (allocator == null) {
        throw new NullPointerException("allocator(BufferAllocator) is required");
      }
      if (sampler == null) {
        throw new NullPointerException("setSampling(batchSize, shuffle) is required");
      }
      for (Feature f : columns.features()) {
        if (f instanceof Feature.Sparse s && s.csr()) {
          throw new IllegalArgumentException(
              "feature '"
                  + s.indices()
                  + "' is kept as CSR, which has no per-row form: densify it (sparse(...)) for a"
                  + " RandomAccessDataset");
        }
      }
      return new RiffleRandomAccessDataset(this, columns.converter(view.dataset()));
    }
  }
}

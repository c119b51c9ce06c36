package dev.riffle.djl;

import ai.djl.ndarray.NDManager;
import ai.djl.training.dataset.RandomAccessDataset;
import ai.djl.training.dataset.Record;
import ai.djl.util.Progress;
import dev.riffle.dataset.DatasetView;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
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
      // keep = {0}: always a copy, so the record does not point into the row it was read from.
      BatchConverter.Converted c =
          converter.convert(
              row, new long[] {view.globalRow(index)}, new int[] {0}, true, manager, buffers);
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

  /** The columns as for {@link RiffleDataset.Builder}; sampling as for any DJL dataset. */
  public static final class Builder extends BaseBuilder<Builder> {
    private final DatasetView view;
    private final List<Feature> features = new ArrayList<>();
    private String label;
    private Normalization normalization = Normalization.none();
    private BufferAllocator allocator;

    private Builder(DatasetView view) {
      this.view = view;
    }

    @Override
    protected Builder self() {
      return this;
    }

    public Builder dense(String... columns) {
      features.add(new Feature.Dense(List.of(columns)));
      return this;
    }

    public Builder vector(String column) {
      features.add(new Feature.Vector(column));
      return this;
    }

    public Builder sparse(String indices, String values, int width) {
      features.add(new Feature.Sparse(indices, values, width, false));
      return this;
    }

    public Builder label(String column) {
      this.label = column;
      return this;
    }

    public Builder normalization(Normalization n) {
      this.normalization = n;
      return this;
    }

    public Builder allocator(BufferAllocator a) {
      this.allocator = a;
      return this;
    }

    /**
     * @throws IllegalArgumentException naming the column that is missing or of an unsupported type
     * @throws NullPointerException if the allocator or the sampling was not given
     */
    public RiffleRandomAccessDataset build() {
      if (allocator == null) {
        throw new NullPointerException("allocator(BufferAllocator) is required");
      }
      if (sampler == null) {
        throw new NullPointerException("setSampling(batchSize, shuffle) is required");
      }
      BatchConverter c =
          new BatchConverter(
              view.dataset().schema(),
              view.dataset().storage().uri(),
              features,
              label,
              normalization);
      return new RiffleRandomAccessDataset(this, c);
    }
  }
}

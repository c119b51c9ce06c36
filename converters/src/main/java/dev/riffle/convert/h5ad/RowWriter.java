package dev.riffle.convert.h5ad;

import dev.riffle.convert.ConvertOptions;
import dev.riffle.dataset.write.DatasetWriter;
import java.io.IOException;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Writes the cells batch by batch. A batch ends at {@link ConvertOptions#batchRows()} rows or
 * before its matrix entries (and fixed-size columns) pass {@link ConvertOptions#batchBytes()},
 * whichever comes first, but holds at least one row.
 */
final class RowWriter {
  private final AnnDataMapping layout;
  private final BufferAllocator allocator;
  private final ConvertOptions options;
  private final BufferMeter meter;
  private final long inputBytes;
  private final int rowBytes;

  RowWriter(
      AnnDataMapping layout,
      BufferAllocator allocator,
      ConvertOptions options,
      BufferMeter meter,
      long inputBytes) {
    this.layout = layout;
    this.allocator = allocator;
    this.options = options;
    this.meter = meter;
    this.inputBytes = inputBytes;
    int b = 0;
    for (Object s : layout.slots) {
      b += s instanceof Column ? ((Column) s).rowBytes() : 8;
    }
    this.rowBytes = b;
  }

  void writeAll(DatasetWriter writer) throws IOException {
    Schema schema = layout.schema();
    long row = 0;
    long reported = 0;
    while (row < layout.rows) {
      int n = (int) Math.min(options.batchRows(), layout.rows - row);
      long[] bytes = new long[n + 1];
      for (int i = 0; i <= n; i++) {
        bytes[i] = (long) i * rowBytes;
      }
      for (Object s : layout.slots) {
        if (s instanceof AnnDataMapping.Matrix) {
          AnnDataMapping.Matrix m = (AnnDataMapping.Matrix) s;
          long[] ext = m.rows().extents(row, n);
          for (int i = 0; i <= n; i++) {
            bytes[i] += ext[i] * m.entryBytes();
          }
        }
      }
      int take = n;
      while (take > 1 && bytes[take] > options.batchBytes()) {
        take--;
      }
      meter.batch(take, bytes[take]);
      try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
        int f = 0;
        for (Object s : layout.slots) {
          if (s instanceof Column) {
            FieldVector v = root.getVector(f++);
            v.allocateNew();
            ((Column) s).fill(v, row, take);
          } else {
            ListVector indices = (ListVector) root.getVector(f++);
            ListVector values = (ListVector) root.getVector(f++);
            indices.allocateNew();
            values.allocateNew();
            ((AnnDataMapping.Matrix) s).rows().fill(indices, values, row, take);
          }
        }
        root.setRowCount(take);
        writer.write(root);
      }
      row += take;
      long done = (long) (inputBytes * (row / (double) layout.rows));
      options.progress().accept(done - reported);
      reported = done;
    }
    if (layout.rows == 0) {
      // One file with no rows still carries the categoricals' categories, which live in files.
      try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
        root.setRowCount(0);
        writer.write(root);
      }
    }
  }
}

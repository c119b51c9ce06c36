package dev.riffle.spark;

import dev.riffle.dataset.Manifest;
import dev.riffle.dataset.RowSets;
import dev.riffle.dataset.storage.Storage;
import dev.riffle.format.CorruptFileException;
import dev.riffle.format.io.RandomAccessSource;
import dev.riffle.format.read.FileReader;
import dev.riffle.format.read.ReadStats;
import dev.riffle.format.read.ScanCursor;
import dev.riffle.spark.vector.ColumnVectors;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.roaringbitmap.longlong.LongIterator;
import org.roaringbitmap.longlong.Roaring64Bitmap;

/**
 * Reads one partition as Arrow-backed columnar batches: its row range of one file is scanned (whole
 * pages, checksummed, read ahead, as a scan of the file), and rows the partition leaves out
 * (deleted, or outside a split) are not decoded. A count-only read reads no column. Each batch
 * stays valid until the next call to {@link #next()}, when its memory is freed.
 */
final class FileBatchReader implements PartitionReader<ColumnarBatch> {
  private final RiffleReaderFactory factory;
  private final FilePartition partition;
  private BufferAllocator allocator;
  private Storage storage;
  private FileReader reader;
  private ScanCursor cursor;
  private LongIterator subset;

  /** The next file row to count, for count-only reads. */
  private long nextRow;

  private VectorSchemaRoot root;
  private ColumnarBatch batch;
  private java.util.List<FieldVector> empties;

  /** What the reader read, reported to Spark as the scan's metrics. */
  private final ReadStats stats = new ReadStats();

  FileBatchReader(RiffleReaderFactory factory, FilePartition partition) {
    this.factory = factory;
    this.partition = partition;
    this.nextRow = partition.start();
  }

  private void open() throws IOException {
    allocator = new RootAllocator();
    storage = factory.storage().open();
    RandomAccessSource source;
    try {
      source = storage.open(partition.path());
    } catch (NoSuchFileException e) {
      NoSuchFileException missing =
          new NoSuchFileException(
              storage.uri(partition.path()),
              null,
              "a data file the dataset's manifest names is missing (deleted or moved since the"
                  + " version was published)");
      missing.initCause(e);
      throw missing;
    }
    String name = source.name();
    try {
      if (source.length() != partition.byteLength()) {
        throw new CorruptFileException(
            name,
            0,
            "is " + source.length() + " bytes but the manifest says " + partition.byteLength());
      }
      reader = FileReader.open(source, true, allocator, stats);
    } catch (IOException | RuntimeException e) {
      source.close();
      throw e;
    }
    // A file swapped with another of the same length is told apart by its footer CRC.
    new Manifest.DataFile(
            partition.path(),
            partition.byteLength(),
            null,
            partition.rowCount(),
            partition.firstRow(),
            partition.footerCrc32c())
        .checkIdentity(reader, partition.version());
    if (reader.rowCount() != partition.rowCount()) {
      throw new CorruptFileException(
          name,
          0,
          "has " + reader.rowCount() + " rows but the manifest says " + partition.rowCount());
    }
    Schema expected = Schema.fromJSON(factory.arrowSchemaJson());
    if (!reader.arrowSchema().getFields().equals(expected.getFields())) {
      throw new CorruptFileException(name, 0, "schema differs from the manifest's");
    }
    Roaring64Bitmap rows = partition.rows() == null ? null : RowSets.decode(partition.rows());
    if (factory.fields().isEmpty()) {
      if (rows != null) {
        subset = rows.getLongIterator();
      }
      return;
    }
    // Whole pages, checksummed and read ahead, as a scan of the file; a partition that leaves rows
    // out scans from its first to its last row and decodes only its own.
    long start = partition.start();
    long end = partition.end();
    if (rows != null && !rows.isEmpty()) {
      start = rows.first() - partition.firstRow();
      end = rows.last() - partition.firstRow() + 1;
    } else if (rows != null) {
      end = start;
    }
    cursor = reader.scan(factory.fields(), factory.batchRows(), start, end);
    if (rows != null) {
      cursor.select(RowSets.selection(rows, partition.firstRow()));
    }
  }

  @Override
  public boolean next() throws IOException {
    if (reader == null) {
      open();
    }
    release();
    int n;
    if (factory.fields().isEmpty()) {
      // Only the row count is needed (count(*)): no column is read.
      n = (int) Math.min(factory.batchRows(), remaining());
      advance(n);
      if (n == 0) {
        return false;
      }
      batch = new ColumnarBatch(new ColumnVector[0], n);
      return true;
    }
    root = cursor.next();
    if (root == null) {
      return false;
    }
    ColumnVector[] columns = new ColumnVector[factory.fields().size()];
    for (int i = 0; i < columns.length; i++) {
      FieldVector v = root.getVector(factory.fields().get(i));
      FieldVector dictionary = null;
      if (v.getField().getDictionary() != null) {
        Dictionary d = reader.dictionaries().lookup(v.getField().getDictionary().getId());
        dictionary = d != null ? d.getVector() : emptyDictionary(v.getName());
      }
      columns[i] = ColumnVectors.of(v, dictionary, factory.readSchema().fields()[i].dataType());
    }
    batch = new ColumnarBatch(columns, root.getRowCount());
    return true;
  }

  /**
   * The values of a file that has no dictionary for a categorical field (all its codes are null, so
   * nothing is looked up in it).
   */
  private FieldVector emptyDictionary(String field) {
    if (empties == null) {
      empties = new java.util.ArrayList<>();
    }
    int f = reader.schema().fieldIndex(field);
    FieldVector values = reader.schema().dictionaryValues(f).createVector(allocator);
    values.setValueCount(0);
    empties.add(values);
    return values;
  }

  /** Rows of the partition not yet returned, for count-only reads. */
  private long remaining() {
    if (subset == null) {
      return partition.end() - nextRow;
    }
    long n = 0;
    while (subset.hasNext() && n < factory.batchRows()) {
      subset.next();
      n++;
    }
    return n;
  }

  private void advance(int n) {
    if (subset == null) {
      nextRow += n;
    }
  }

  @Override
  public CustomTaskMetric[] currentMetricsValues() {
    return ReadMetrics.of(stats);
  }

  @Override
  public ColumnarBatch get() {
    return batch;
  }

  private void release() {
    batch = null;
    if (empties != null) {
      empties.forEach(FieldVector::close);
      empties = null;
    }
    if (root != null) {
      root.close();
      root = null;
    }
  }

  @Override
  public void close() throws IOException {
    release();
    try {
      if (cursor != null) {
        cursor.close();
      }
      if (reader != null) {
        reader.close();
      }
    } finally {
      try {
        if (allocator != null) {
          allocator.close();
        }
      } finally {
        // After the reader: on a Hadoop file system, closing the storage closes its FileSystem.
        if (storage != null) {
          storage.close();
        }
      }
    }
  }
}

package dev.riffle.spark;

import dev.riffle.dataset.Manifest;
import dev.riffle.dataset.RowSets;
import dev.riffle.dataset.storage.Storage;
import dev.riffle.format.CorruptFileException;
import dev.riffle.format.io.RandomAccessSource;
import dev.riffle.format.read.FileReader;
import dev.riffle.format.read.PageFilter;
import dev.riffle.format.read.PageInfo;
import dev.riffle.format.read.ReadStats;
import dev.riffle.format.read.RowRanges;
import dev.riffle.format.read.ScanCursor;
import dev.riffle.spark.vector.ColumnVectors;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.util.HashSet;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.execution.vectorized.OnHeapColumnVector;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.roaringbitmap.longlong.Roaring64Bitmap;

/**
 * Reads one partition as Arrow-backed columnar batches: its row range of one file is scanned (whole
 * pages, checksummed, read ahead, as a scan of the file), less the pages whose statistics exclude
 * the pushed filter; rows the partition leaves out (deleted, outside a split, or not among the
 * {@code _row_id}s asked for) are not decoded, and a few rows far apart are taken instead. A
 * count-only read reads no column. Each batch stays valid until the next call to {@link #next()},
 * when its memory is freed.
 */
final class FileBatchReader implements PartitionReader<ColumnarBatch> {
  private final RiffleReaderFactory factory;
  private final FilePartition partition;
  private BufferAllocator allocator;
  private Storage storage;
  private FileReader reader;
  private ScanCursor cursor;

  /** The ids of the rows returned, in order (also what a count-only read counts). */
  private RowIds.Cursor ids;

  /** A take's rows, returned as the one batch, or null. */
  private VectorSchemaRoot taken;

  private long[] idBuffer;
  private OnHeapColumnVector rowIds;

  /** Rows of the partition's range that page statistics excluded, unread. */
  private long rowsSkipped;

  private VectorSchemaRoot root;
  private ColumnarBatch batch;
  private java.util.List<FieldVector> empties;

  /** What the reader read, reported to Spark as the scan's metrics. */
  private final ReadStats stats = new ReadStats();

  FileBatchReader(RiffleReaderFactory factory, FilePartition partition) {
    this.factory = factory;
    this.partition = partition;
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
    // The rows to read: the partition's range, from the first to the last of its rows if it leaves
    // some out, less the pages the filter's statistics exclude.
    long start = partition.start();
    long end = partition.end();
    if (rows != null && !rows.isEmpty()) {
      start = rows.first() - partition.firstRow();
      end = rows.last() - partition.firstRow() + 1;
    } else if (rows != null) {
      end = start;
    }
    RowRanges ranges = RowRanges.of(start, end);
    if (factory.filter() != null && !ranges.isEmpty()) {
      PageFilter filter = factory.filter().toPageFilter();
      RowRanges kept = ranges.intersect(reader.candidateRows(filter));
      rowsSkipped = ranges.rowCount() - kept.rowCount();
      ranges = kept;
      if (!ranges.isEmpty() && filterFirstPays(filter, ranges)) {
        // The filter's columns first, then the other columns of the matching rows only: takes
        // when they are few and far apart (below), else a scan that decodes only them. Spark
        // still tests every row returned; this only spares reading and decoding the others.
        Roaring64Bitmap matching = new Roaring64Bitmap();
        RowRanges m = filter.matchingRows(reader, ranges);
        for (int i = 0; i < m.count(); i++) {
          RowSets.addRange(
              matching, partition.firstRow() + m.start(i), partition.firstRow() + m.end(i));
        }
        if (rows != null) {
          matching.and(rows);
        }
        rows = matching;
        ranges =
            rows.isEmpty()
                ? RowRanges.none()
                : ranges.intersect(
                    RowRanges.of(
                        rows.first() - partition.firstRow(),
                        rows.last() - partition.firstRow() + 1));
      }
    }
    ids = new RowIds.Cursor(partition.firstRow(), ranges, rows);
    if (factory.fields().isEmpty() || ranges.isEmpty()) {
      // Only the row count or the row ids are needed (count(*), _row_id): no column is read.
      return;
    }
    long selected = rows == null ? ranges.rowCount() : rows.getLongCardinality();
    long span = partition.end() - partition.start();
    if (rows != null && selected <= factory.batchRows() && selected * SPARSE < span) {
      // A few rows far apart (a lookup by _row_id): takes read a sector or a record each, where a
      // scan would read whole pages.
      long[] fileRows = new long[(int) selected];
      int n = new RowIds.Cursor(partition.firstRow(), ranges, rows).next(fileRows.length, fileRows);
      fileRows = java.util.Arrays.copyOf(fileRows, n);
      for (int i = 0; i < n; i++) {
        fileRows[i] -= partition.firstRow();
      }
      taken = n == 0 ? null : reader.take(fileRows, factory.fields());
      return;
    }
    // Whole pages, checksummed and read ahead, as a scan of the file; rows the partition leaves out
    // are not decoded.
    cursor = reader.scan(factory.fields(), factory.batchRows(), ranges);
    if (rows != null) {
      cursor.select(RowSets.selection(rows, partition.firstRow()));
    }
  }

  /**
   * Whether reading the filter's columns first pays for reading them twice: when the other columns'
   * pages among the candidate rows hold at least {@value #FILTER_FIRST} times the bytes of the
   * filter's (a wide column, such as an embedding, beside narrow filter columns).
   */
  private boolean filterFirstPays(PageFilter filter, RowRanges rows) throws IOException {
    Set<Integer> filterColumns = new HashSet<>();
    Set<Integer> others = new HashSet<>();
    for (String f : factory.fields()) {
      int column = reader.schema().columnOf(reader.schema().fieldIndex(f));
      (filter.fields().contains(f) ? filterColumns : others).add(column);
    }
    for (String f : filter.fields()) {
      filterColumns.add(reader.schema().columnOf(reader.schema().fieldIndex(f)));
    }
    others.removeAll(filterColumns);
    return !others.isEmpty()
        && pageBytes(others, rows) >= FILTER_FIRST * pageBytes(filterColumns, rows);
  }

  private static final int FILTER_FIRST = 4;

  /** The bytes of the pages of these stored columns that hold some of {@code rows}. */
  private long pageBytes(Set<Integer> columns, RowRanges rows) throws IOException {
    long bytes = 0;
    for (int c : columns) {
      for (PageInfo p : reader.pages(c)) {
        if (!rows.intersect(RowRanges.of(p.firstRow(), p.firstRow() + p.rowCount())).isEmpty()) {
          bytes += p.byteLength();
        }
      }
    }
    return bytes;
  }

  /**
   * A take serves a partition whose rows are fewer than one in this many of its range (even a
   * single row: a scan would read a whole page of each column for it, a take a sector or so).
   */
  private static final int SPARSE = 64;

  @Override
  public boolean next() throws IOException {
    if (reader == null) {
      open();
    }
    release();
    int n;
    if (factory.fields().isEmpty()) {
      n = ids.next(factory.batchRows(), idBuffer());
      if (n == 0) {
        return false;
      }
    } else {
      if (taken != null) {
        // The one batch of a take; nothing follows it (cursor is null).
        root = taken;
        taken = null;
      } else {
        root = cursor == null ? null : cursor.next();
      }
      if (root == null) {
        return false;
      }
      n = root.getRowCount();
      if (factory.rowIdIndex() >= 0) {
        ids.next(n, idBuffer());
      }
    }
    StructField[] out = factory.readSchema().fields();
    ColumnVector[] columns = new ColumnVector[out.length];
    for (int i = 0; i < columns.length; i++) {
      if (i == factory.rowIdIndex()) {
        rowIds.reset();
        rowIds.putLongs(0, n, idBuffer, 0);
        columns[i] = rowIds;
        continue;
      }
      FieldVector v = root.getVector(out[i].name());
      FieldVector dictionary = null;
      if (v.getField().getDictionary() != null) {
        Dictionary d = reader.dictionaries().lookup(v.getField().getDictionary().getId());
        dictionary = d != null ? d.getVector() : emptyDictionary(v.getName());
      }
      columns[i] = ColumnVectors.of(v, dictionary, out[i].dataType());
    }
    batch = new ColumnarBatch(columns, n);
    return true;
  }

  /** Room for a batch of ids (null when the output has no _row_id and only counts are needed). */
  private long[] idBuffer() {
    if (factory.rowIdIndex() < 0) {
      return null;
    }
    int size = Math.max(factory.batchRows(), root == null ? 0 : root.getRowCount());
    if (idBuffer == null || idBuffer.length < size) {
      idBuffer = new long[size];
      if (rowIds != null) {
        rowIds.close();
      }
      rowIds = new OnHeapColumnVector(size, DataTypes.LongType);
    }
    return idBuffer;
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

  @Override
  public CustomTaskMetric[] currentMetricsValues() {
    return ReadMetrics.of(stats, rowsSkipped);
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
    if (taken != null) {
      taken.close();
      taken = null;
    }
    if (rowIds != null) {
      rowIds.close();
    }
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

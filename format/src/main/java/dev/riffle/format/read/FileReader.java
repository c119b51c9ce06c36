// Why this file stays whole (over 500 lines): see "Why this file is longer than most" in the class
// comment: it is the public face of reading a file; the work behind it lives in its own classes.
package dev.riffle.format.read;

import dev.riffle.format.ColumnInfo;
import dev.riffle.format.ColumnLayout;
import dev.riffle.format.CorruptFileException;
import dev.riffle.format.DirectoryLayout;
import dev.riffle.format.FileLayout;
import dev.riffle.format.encoding.Buffers;
import dev.riffle.format.encoding.VectorSizes;
import dev.riffle.format.io.FileSource;
import dev.riffle.format.io.IoEngine;
import dev.riffle.format.io.RandomAccessSource;
import dev.riffle.format.schema.ColumnSpec;
import dev.riffle.format.schema.RiffleSchema;
import dev.riffle.format.schema.TypeSupport;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.zip.CRC32C;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Reads a Riffle file: its schema, random takes of rows in any order, and scans. Opening reads the
 * footer, directory and schema (usually one read of the tail, plus the head's magic); each column's
 * search metadata is read on first use, in one read. After that, a row of a column (or column
 * group) costs one read. Safe for concurrent use; the results are owned by the caller.
 *
 * <p>A take's reads are sorted, de-duplicated and coalesced across all requested columns ({@link
 * TakePlan}); they are then executed by the reader's {@link IoEngine}: with up to {@link
 * #DEFAULT_READS_IN_FLIGHT} reads in flight (or {@link #setReadsInFlight(int) n}) into the caller's
 * read area, after which the caller decodes every row straight into pre-sized vectors; or one at a
 * time in the caller's thread ({@link IoEngine#synchronous()}). A take too large for the area (over
 * 64 MiB) has each read's rows decoded by the thread that read them, then copied into the result in
 * row order. Reads of local files go into reused direct, 4096-aligned buffers; {@link #open(Path,
 * BufferAllocator, boolean)} can bypass the page cache (O_DIRECT). A remote source ({@link
 * RandomAccessSource#isRemote()}: S3, a chunk cache in front of it) instead gets all of a take's
 * reads in one {@link RandomAccessSource#readRanges} call, which it serves as one round of parallel
 * requests.
 *
 * <p>Why this file is longer than most: it is the whole public face of reading a file (open, plan,
 * take, scans of the file, of row ranges and of the pages a filter cannot skip, page statistics,
 * record census, dictionaries, counters and I/O settings) and the one place that owns the lazily
 * loaded column metadata and the result vectors' sizing. The work behind it lives in its own
 * classes: {@link FileMetadata} (open), {@link ColumnBlockReader} (column metadata), {@link
 * PlanReads} and {@link ConcurrentTake} (the take strategies), {@link ColumnReader} with its
 * decoders, {@link ScanCursor}, {@link PageFilter}, {@link RecordCensus}.
 */
public final class FileReader implements AutoCloseable {
  private final RandomAccessSource source;
  private final boolean ownsSource;
  private final BufferAllocator allocator;
  private final String resource;
  private final long length;
  private final long rowCount;
  private final FileLayout.Version version;
  private final RiffleSchema schema;
  private final DirectoryLayout.Entry[] directory;
  final PlanReads planReads;
  private final ColumnReader[] columns;
  private final ReadStats stats;
  private final int footerCrc32c;
  private long coalesceGap = 0;
  private volatile IoEngine engine = IoEngine.shared(DEFAULT_READS_IN_FLIGHT);

  private FileReader(
      RandomAccessSource source,
      boolean ownsSource,
      BufferAllocator allocator,
      long length,
      long rowCount,
      FileLayout.Version version,
      RiffleSchema schema,
      DirectoryLayout.Entry[] directory,
      ReadStats stats,
      int footerCrc32c) {
    this.stats = stats;
    this.footerCrc32c = footerCrc32c;
    this.source = source;
    this.ownsSource = ownsSource;
    this.allocator = allocator;
    this.resource = source.name();
    this.length = length;
    this.rowCount = rowCount;
    this.version = version;
    this.schema = schema;
    this.directory = directory;
    this.columns = new ColumnReader[directory.length];
    this.planReads = new PlanReads(source, stats);
  }

  /** Opens a local file; the reader closes it. */
  public static FileReader open(Path path, BufferAllocator allocator) throws IOException {
    FileSource source = FileSource.open(path);
    try {
      return open(source, true, allocator);
    } catch (IOException | RuntimeException e) {
      source.close();
      throw e;
    }
  }

  /**
   * Opens a local file, bypassing the page cache (O_DIRECT) if {@code direct} and the file system
   * allows it; otherwise it reads through the page cache, as {@link FileSource#directFallback()}
   * reports.
   */
  public static FileReader open(Path path, BufferAllocator allocator, boolean direct)
      throws IOException {
    FileSource source = FileSource.open(path, direct);
    try {
      return open(source, true, allocator);
    } catch (IOException | RuntimeException e) {
      source.close();
      throw e;
    }
  }

  /**
   * Opens a file from any source.
   *
   * @param ownsSource whether {@link #close()} closes the source
   * @throws CorruptFileException if the framing, checksums or schema are invalid
   */
  public static FileReader open(
      RandomAccessSource source, boolean ownsSource, BufferAllocator allocator) throws IOException {
    return open(source, ownsSource, allocator, new ReadStats());
  }

  /**
   * Opens a file whose reads are counted in {@code stats}, which several readers may share (the
   * files of a dataset count into one).
   */
  public static FileReader open(
      RandomAccessSource source, boolean ownsSource, BufferAllocator allocator, ReadStats stats)
      throws IOException {
    FileMetadata m = FileMetadata.read(source);
    return new FileReader(
        source,
        ownsSource,
        allocator,
        m.length(),
        m.rowCount(),
        m.version(),
        m.schema(),
        m.directory(),
        stats,
        m.footerCrc32c());
  }

  static ByteBuffer read(RandomAccessSource source, ReadStats stats, long offset, long length)
      throws IOException {
    if (length > Integer.MAX_VALUE - 64) {
      throw new CorruptFileException(
          source.name(), offset, "read of " + length + " bytes is too large");
    }
    ByteBuffer b = ByteBuffer.allocate((int) length).order(ByteOrder.LITTLE_ENDIAN);
    try {
      source.readFully(offset, b);
    } catch (EOFException e) {
      throw new CorruptFileException(
          source.name(), offset, "file ends inside a read of " + length + " bytes", e);
    }
    stats.read(offset, length);
    b.flip();
    return b;
  }

  ByteBuffer read(long offset, long length) throws IOException {
    return read(source, stats, offset, length);
  }

  /** The name of the underlying resource. */
  public String name() {
    return resource;
  }

  public RiffleSchema schema() {
    return schema;
  }

  /** The Arrow schema of what {@link #take} and {@link #scan} return. */
  public Schema arrowSchema() {
    return schema.arrow();
  }

  public long rowCount() {
    return rowCount;
  }

  public long byteLength() {
    return length;
  }

  public String formatVersion() {
    return version.toString();
  }

  /**
   * The footer's own CRC32C (FORMAT.md §3.1, footer bytes 52–55), read at open. It covers the
   * schema (and its metadata) and the directory, so files whose schemas differ have different
   * footer CRCs; dataset manifests record it to tell their files apart (§11.2).
   */
  public int footerCrc32c() {
    return footerCrc32c;
  }

  /** Counters of everything read since open or the last reset (column metadata included). */
  public ReadStats stats() {
    return stats;
  }

  /** Ranges closer than this many bytes are read as one (default 0: only touching ranges). */
  public void setCoalesceGap(long bytes) {
    if (bytes < 0) {
      throw new IllegalArgumentException("negative gap");
    }
    this.coalesceGap = bytes;
  }

  /**
   * Reads in flight per take by default. A cold random take waits on the disk once per read; one at
   * a time, a 256-row take of 4 KiB rows is 256 read latencies, which lost to Lance's parallel take
   * at one caller; with 16 in flight it leads (benchmarks/RESULTS.md, cold random takes).
   */
  public static final int DEFAULT_READS_IN_FLIGHT = 16;

  /**
   * Executes takes with this engine: by default {@link IoEngine#shared(int) shared}({@value
   * #DEFAULT_READS_IN_FLIGHT}), which keeps up to that many reads of a take in flight (a one-read
   * take stays in the caller's thread); {@link IoEngine#synchronous()} reads in the caller's
   * thread, one read at a time, for callers that run many takes side by side themselves. Counters
   * are the same either way.
   */
  public void setIoEngine(IoEngine engine) {
    if (engine == null) {
      throw new IllegalArgumentException("null engine");
    }
    this.engine = engine;
  }

  /** Shorthand for {@code setIoEngine(IoEngine.shared(n))}: up to n reads in flight per take. */
  public void setReadsInFlight(int n) {
    setIoEngine(IoEngine.shared(n));
  }

  /** The engine that executes takes. */
  public IoEngine ioEngine() {
    return engine;
  }

  /** The source the reader reads from. */
  public RandomAccessSource source() {
    return source;
  }

  ColumnReader column(int c) throws IOException {
    synchronized (columns) {
      if (columns[c] == null) {
        DirectoryLayout.Entry d = directory[c];
        ByteBuffer block = read(d.blockOffset(), d.blockLength());
        columns[c] =
            ColumnBlockReader.load(
                c,
                schema.columns().get(c),
                schema,
                block,
                d.blockOffset(),
                rowCount,
                length,
                d.dataBytes(),
                d.pageCount(),
                FileLayout.hasRecordCrcs(version),
                allocator,
                resource);
      }
      return columns[c];
    }
  }

  /**
   * Loads the search metadata of the columns holding these fields (all if null), so that later
   * takes cost only their data reads.
   */
  public void loadColumns(List<String> fields) throws IOException {
    for (int c : columnsFor(resolve(fields))) {
      column(c);
    }
  }

  private int[] resolve(List<String> fields) {
    if (fields == null || fields.isEmpty()) {
      int[] all = new int[schema.fields().size()];
      Arrays.setAll(all, i -> i);
      return all;
    }
    int[] idx = new int[fields.size()];
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < idx.length; i++) {
      String name = fields.get(i);
      idx[i] = schema.fieldIndex(name);
      if (idx[i] < 0) {
        List<String> names = new ArrayList<>();
        for (Field f : schema.fields()) {
          names.add(f.getName());
        }
        throw new IllegalArgumentException(
            "no column '" + name + "' in " + resource + "; columns are " + names);
      }
      if (!seen.add(name)) {
        throw new IllegalArgumentException("column '" + name + "' requested twice");
      }
    }
    return idx;
  }

  private int[] columnsFor(int[] fieldIdx) {
    return Arrays.stream(fieldIdx).map(schema::columnOf).distinct().sorted().toArray();
  }

  /**
   * Plans a take: which byte ranges hold the rows. Loads column metadata if needed, reads no data.
   *
   * @param rows row numbers in any order, duplicates allowed
   * @param fields top-level field names, or null for all
   */
  public TakePlan plan(long[] rows, List<String> fields) throws IOException {
    int[] fieldIdx = resolve(fields);
    int[] cols = columnsFor(fieldIdx);
    for (long r : rows) {
      if (r < 0 || r >= rowCount) {
        throw new IllegalArgumentException(
            "row " + r + " is out of range: " + resource + " has " + rowCount + " rows");
      }
    }
    long[] offsets = new long[cols.length * rows.length];
    long[] lengths = new long[offsets.length];
    long[] loc = new long[2];
    for (int c = 0; c < cols.length; c++) {
      ColumnReader col = column(cols[c]);
      for (int i = 0; i < rows.length; i++) {
        col.locate(rows[i], loc);
        offsets[c * rows.length + i] = loc[0];
        lengths[c * rows.length + i] = loc[1];
      }
    }
    List<String> names = new ArrayList<>();
    for (int f : fieldIdx) {
      names.add(schema.fields().get(f).getName());
    }
    return new TakePlan(rows.clone(), names, cols, offsets, lengths, coalesceGap);
  }

  /**
   * Reads rows in the given order (duplicates allowed) as a new batch that the caller closes.
   *
   * @param fields top-level field names, or null for all
   * @throws IllegalArgumentException for an unknown field or a row out of range
   * @throws CorruptFileException if the bytes read are damaged
   */
  public VectorSchemaRoot take(long[] rows, List<String> fields) throws IOException {
    return take(plan(rows, fields));
  }

  /** Executes a plan made by {@link #plan}. */
  public VectorSchemaRoot take(TakePlan plan) throws IOException {
    verifyUncheckedPages(plan);
    int reads = plan.reads();
    if (reads > 0) {
      stats.round();
    }
    IoEngine e = engine;
    // A remote source gets every range in one call instead (it fetches them in parallel).
    boolean batch = reads > 1 && source.isRemote();
    boolean parallel = !batch && e.workersFor(reads) > 1;
    ByteBuffer area = ReadArena.get(plan.alignedBytes(), source.prefersDirectBuffers());
    if (parallel && area == null) {
      return ConcurrentTake.run(this, plan, e);
    }
    ByteBuffer[] buffers = planReads.read(plan, area, e, batch, parallel);
    int n = plan.rows.length;
    ColumnReader[] readers = new ColumnReader[plan.columns.length];
    VectorSizes[] sizes = new VectorSizes[plan.columns.length];
    for (int c = 0; c < plan.columns.length; c++) {
      readers[c] = column(plan.columns[c]);
      if (readers[c].sizedByData()) {
        VectorSizes s = readers[c].newSizes();
        boolean measured = true;
        for (int i = 0; i < n && measured; i++) {
          int r = plan.readOf[c * n + i];
          measured = readers[c].measureRow(plan.rows[i], buffers[r], plan.readOffset[r], s);
        }
        sizes[c] = measured ? s : null;
      }
    }
    VectorSchemaRoot root = newRoot(plan.fields, n, sizing(readers, sizes));
    try {
      for (int c = 0; c < plan.columns.length; c++) {
        ColumnReader col = column(plan.columns[c]);
        Target target = target(col.spec, root);
        for (int i = 0; i < n; i++) {
          int r = plan.readOf[c * n + i];
          col.decodeRow(plan.rows[i], buffers[r], plan.readOffset[r], target, i);
        }
      }
      root.setRowCount(n);
      checkDictionaryIndices(root);
      stats.decoded((long) n * plan.fields.size());
      return root;
    } catch (IOException | RuntimeException ex) {
      root.close();
      throw ex;
    }
  }

  /** Sizes a result vector before it is allocated, from measured rows. */
  interface Sizing {
    /**
     * Sets the initial capacities of {@code v}, the vector of top-level field {@code field}, for
     * {@code rows} rows.
     *
     * @return the measured sizes of the field's vector tree, or null if nothing was measured for it
     *     (the defaults apply)
     */
    VectorSizes presize(int field, FieldVector v, int rows);
  }

  /** The sizing of vectors from columns' measured sizes ({@code sizes[c]} null: not measured). */
  Sizing sizing(ColumnReader[] readers, VectorSizes[] sizes) {
    return (field, v, rows) -> {
      int column = schema.columnOf(field);
      for (int c = 0; c < readers.length; c++) {
        if (readers[c].index == column && sizes[c] != null) {
          return readers[c].presize(v, field, sizes[c], rows);
        }
      }
      return null;
    };
  }

  VectorSchemaRoot newRoot(List<String> fields, int capacity) {
    return newRoot(fields, capacity, null);
  }

  /**
   * A batch of vectors for {@code capacity} rows, each allocated once: sized by {@code sizing}
   * where it measured the rows, else for the row count with Arrow's per-value defaults.
   */
  private VectorSchemaRoot newRoot(List<String> fields, int capacity, Sizing sizing) {
    List<FieldVector> vectors = new ArrayList<>();
    try {
      for (String name : fields) {
        int field = schema.fieldIndex(name);
        FieldVector v = schema.fields().get(field).createVector(allocator);
        vectors.add(v);
        VectorSizes sizes = sizing == null ? null : sizing.presize(field, v, capacity);
        if (sizes == null) {
          v.setInitialCapacity(initialCapacity(v.getField(), capacity));
          v.allocateNew();
        } else if (!Buffers.allocateBareItems(v, sizes.itemSlots())) {
          v.allocateNew();
        }
      }
    } catch (RuntimeException e) {
      vectors.forEach(FieldVector::close);
      throw e;
    }
    return new VectorSchemaRoot(vectors);
  }

  /**
   * Rows to allocate up front: all of them, unless the schema's fixed-size values make that more
   * than {@link #PRESIZE_BYTES} per vector tree (decoders grow vectors as rows arrive, so a smaller
   * start only costs reallocations, while a damaged schema cannot ask for gigabytes before a byte
   * of data has been read).
   */
  static int initialCapacity(Field field, int rows) {
    long perRow = Math.max(1, TypeSupport.nominalBytes(field));
    return (int) Math.max(1, Math.min(rows, PRESIZE_BYTES / perRow));
  }

  /** Upper bound of bytes pre-allocated per field for one batch. */
  static final long PRESIZE_BYTES = 64L << 20;

  Target target(ColumnSpec spec, VectorSchemaRoot root) {
    if (!spec.group()) {
      return new Target(root.getVector(schema.fields().get(spec.fields().get(0)).getName()), null);
    }
    List<FieldVector> vs = new ArrayList<>();
    for (int f : spec.fields()) {
      vs.add(root.getVector(schema.fields().get(f).getName()));
    }
    return new Target(null, vs);
  }

  void checkDictionaryIndices(VectorSchemaRoot root) throws IOException {
    for (FieldVector v : root.getFieldVectors()) {
      if (v.getField().getDictionary() == null) {
        continue;
      }
      int fi = schema.fieldIndex(v.getName());
      FieldVector dict = column(schema.columnOf(fi)).dictionary();
      long size = dict == null ? 0 : dict.getValueCount();
      BaseIntVector ints = (BaseIntVector) v;
      for (int i = 0; i < root.getRowCount(); i++) {
        if (!v.isNull(i)) {
          long code = ints.getValueAsLong(i);
          if (code < 0 || code >= size) {
            throw new CorruptFileException(
                resource,
                directory[schema.columnOf(fi)].blockOffset(),
                "dictionary index "
                    + code
                    + " of column '"
                    + v.getName()
                    + "' outside [0, "
                    + size
                    + ")");
          }
        }
      }
    }
  }

  /**
   * The dictionaries of dictionary-encoded fields, keyed by their encoding id. The vectors belong
   * to this reader and stay valid until it is closed.
   */
  public DictionaryProvider dictionaries() throws IOException {
    DictionaryProvider.MapDictionaryProvider provider =
        new DictionaryProvider.MapDictionaryProvider();
    for (int f = 0; f < schema.fields().size(); f++) {
      Field field = schema.fields().get(f);
      if (field.getDictionary() != null) {
        provider.put(
            new Dictionary(column(schema.columnOf(f)).dictionary(), field.getDictionary()));
      }
    }
    return provider;
  }

  /** Iterates over all rows in order, {@code batchRows} at a time, verifying page checksums. */
  public ScanCursor scan(List<String> fields, int batchRows) throws IOException {
    return scan(fields, batchRows, RowRanges.all(rowCount));
  }

  /**
   * Iterates over rows {@code [startRow, endRow)} in order, {@code batchRows} at a time, reading
   * only the pages that hold them, each whole and checksummed (the sequential page path of a whole
   * scan, for a part of a file: a partition, or the rows of a dataset view in this file); {@link
   * ScanCursor#select} narrows it to some of those rows.
   *
   * @throws IllegalArgumentException unless {@code 0 ≤ startRow ≤ endRow ≤ rowCount()}
   */
  public ScanCursor scan(List<String> fields, int batchRows, long startRow, long endRow)
      throws IOException {
    return scan(fields, batchRows, RowRanges.of(startRow, endRow));
  }

  /**
   * Iterates over the given rows in order, reading only the pages that hold them, each whole and
   * checksummed, as {@link #scan(List, int)} does; a batch holds rows of one range only ({@link
   * ScanCursor#batchFirstRow()} says which). With {@link #candidateRows}, a scan of only the pages
   * a filter cannot exclude.
   *
   * @throws IllegalArgumentException if a range reaches past the last row
   */
  public ScanCursor scan(List<String> fields, int batchRows, RowRanges rows) throws IOException {
    if (batchRows < 1) {
      throw new IllegalArgumentException("batch rows must be at least 1");
    }
    if (!rows.isEmpty() && rows.end(rows.count() - 1) > rowCount) {
      throw new IllegalArgumentException(
          "rows "
              + rows
              + " reach past the end of "
              + resource
              + ", which has "
              + rowCount
              + " rows");
    }
    int[] fieldIdx = resolve(fields);
    List<String> names = new ArrayList<>();
    for (int f : fieldIdx) {
      names.add(schema.fields().get(f).getName());
    }
    int[] cols = columnsFor(fieldIdx);
    ColumnReader[] readers = new ColumnReader[cols.length];
    for (int c = 0; c < cols.length; c++) {
      readers[c] = column(cols[c]);
    }
    return new ScanCursor(this, names, readers, batchRows, rows);
  }

  /**
   * The statistics of each page of the column holding {@code field} (FORMAT.md §4.5), in page
   * order; empty for a file without statistics (format 1.0). Loads the column's metadata.
   *
   * @throws IllegalArgumentException for an unknown field
   */
  public List<PageStats> pageStats(String field) throws IOException {
    ColumnReader col = columnOfField(field);
    int k = col.spec.fields().indexOf(schema.fieldIndex(field));
    List<PageStats> out = new ArrayList<>(col.pages.length);
    for (PageInfo p : col.pages) {
      if (p.stats().isEmpty()) {
        return List.of();
      }
      out.add(p.stats().get(k));
    }
    return List.copyOf(out);
  }

  /**
   * The rows of the pages that {@code filter} cannot exclude by their statistics (all rows of a
   * file without them); loads the metadata of the filter's columns, reads no page. Empty: the file
   * holds no matching row.
   *
   * @throws IllegalArgumentException for an unknown field or a literal the field cannot compare
   */
  public RowRanges candidateRows(PageFilter filter) throws IOException {
    return filter.rows(this);
  }

  /** The loaded column holding top-level field {@code name}. */
  ColumnReader columnOfField(String name) throws IOException {
    return column(schema.columnOf(resolve(List.of(name))[0]));
  }

  /**
   * Zipped pages of a 1.0 file have no record CRCs, so a take could not tell a damaged record from
   * a good one: the first take that touches such a page reads it whole and checks its page CRC
   * (once per reader). Files of 1.4 verify every record instead and never get here.
   */
  private void verifyUncheckedPages(TakePlan plan) throws IOException {
    if (FileLayout.hasRecordCrcs(version)) {
      return;
    }
    for (int c = 0; c < plan.columns.length; c++) {
      ColumnReader col = column(plan.columns[c]);
      for (long row : plan.rows) {
        int p = col.pageOf(row);
        if (col.pages[p].layout() != ColumnLayout.LAYOUT_SECTORS) {
          col.checkPageOnce(p, q -> readPage(col, q));
        }
      }
    }
  }

  /** Reads a whole page and checks its checksum. */
  ByteBuffer readPage(ColumnReader col, int p) throws IOException {
    PageInfo page = col.pages[p];
    ByteBuffer b = read(page.offset(), page.byteLength());
    CRC32C crc = new CRC32C();
    crc.update(b.duplicate());
    if ((int) crc.getValue() != page.crc32c()) {
      throw new CorruptFileException(
          resource,
          page.offset(),
          "page " + p + " of column '" + col.spec.name() + "' fails its checksum");
    }
    stats.round();
    return b;
  }

  VectorSchemaRoot newBatch(List<String> fields, int capacity, Sizing sizing) {
    return newRoot(fields, capacity, sizing);
  }

  Target targetFor(ColumnSpec spec, VectorSchemaRoot root) {
    return target(spec, root);
  }

  void finishBatch(VectorSchemaRoot root, int rows, int fields) throws IOException {
    root.setRowCount(rows);
    checkDictionaryIndices(root);
    stats.decoded((long) rows * fields);
  }

  /** The pages of stored column {@code column} (an index into {@code schema().columns()}). */
  public List<PageInfo> pages(int column) throws IOException {
    return List.of(column(column).pages);
  }

  /**
   * How the records of stored column {@code column} are encoded, by kind; reads every zipped page
   * of the column whole.
   */
  public RecordCensus recordCensus(int column) throws IOException {
    return RecordCensus.count(this, column(column));
  }

  /** Per-column layout and metadata figures; loads every column's metadata. */
  public List<ColumnInfo> describe() throws IOException {
    List<ColumnInfo> out = new ArrayList<>();
    for (int c = 0; c < columns.length; c++) {
      ColumnReader col = column(c);
      Map<String, Integer> layouts = new LinkedHashMap<>();
      long sectors = 0;
      for (PageInfo p : col.pages) {
        layouts.merge(ColumnLayout.layoutName(p.layout()), 1, Integer::sum);
        sectors += p.sectorCount();
      }
      List<String> fields = new ArrayList<>();
      for (int f : col.spec.fields()) {
        fields.add(schema.fields().get(f).getName());
      }
      out.add(
          new ColumnInfo(
              col.spec.name(),
              fields,
              col.pages.length,
              layouts,
              sectors,
              col.dataBytes,
              col.blockBytes,
              col.ramBytes));
    }
    return out;
  }

  @Override
  public void close() throws IOException {
    synchronized (columns) {
      for (ColumnReader c : columns) {
        if (c != null) {
          c.close();
        }
      }
      Arrays.fill(columns, null);
    }
    if (ownsSource) {
      source.close();
    }
  }
}

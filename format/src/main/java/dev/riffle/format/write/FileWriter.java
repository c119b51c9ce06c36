package dev.riffle.format.write;

import dev.riffle.format.ByteSink;
import dev.riffle.format.DirectoryLayout;
import dev.riffle.format.FileLayout;
import dev.riffle.format.FooterLayout;
import dev.riffle.format.io.TempFiles;
import dev.riffle.format.schema.RiffleSchema;
import dev.riffle.format.schema.SchemaLayout;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32C;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Writes Arrow batches into one Riffle file. Memory stays bounded (about two pages per column), the
 * bytes depend only on the rows and options (not on how rows are split into batches), and a file
 * written to a path appears there only when {@link #finish()} succeeds: until then it is a hidden
 * temporary file in the same directory, removed on failure or {@link #close()}.
 */
public final class FileWriter implements AutoCloseable {
  private final RiffleSchema schema;
  private final Schema arrow;
  private final DictionaryProvider dictionaries;
  private final List<ColumnWriter> columns = new ArrayList<>();
  private final FileOutput out;
  private final OutputStream stream;
  private final FileChannel channel;
  private final Path temp;
  private final Path target;
  private long rowCount;
  private boolean finished;
  private boolean failed;

  private FileWriter(
      RiffleSchema schema,
      DictionaryProvider dictionaries,
      WriterOptions options,
      OutputStream stream,
      FileChannel channel,
      Path temp,
      Path target,
      List<DictionaryRemapper> sharedDictionaries)
      throws IOException {
    this.schema = schema;
    this.arrow = schema.arrow();
    this.dictionaries = dictionaries;
    this.stream = stream;
    this.channel = channel;
    this.temp = temp;
    this.target = target;
    for (var spec : schema.columns()) {
      int c = columns.size();
      columns.add(
          new ColumnWriter(
              schema,
              spec,
              options.pageBytes(),
              options.zstdLevel(),
              options.sectorZstd(),
              options.splitRecords(),
              options.listSectors(),
              options.packRecords(),
              sharedDictionaries == null ? null : sharedDictionaries.get(c)));
    }
    this.out = new FileOutput(stream);
    byte[] head = FileLayout.writeHead();
    out.write(head, 0, head.length);
    out.alignToSector();
  }

  /**
   * Creates a writer for a file at {@code target}, replacing any file there once finished.
   *
   * @param dictionaries the dictionaries of dictionary-encoded fields (null if there are none)
   * @throws dev.riffle.format.schema.UnsupportedTypeException if a field cannot be stored
   */
  public static FileWriter create(
      Path target, Schema schema, DictionaryProvider dictionaries, WriterOptions options)
      throws IOException {
    RiffleSchema rs = schemaFor(schema, dictionaries, options);
    // A name that says whose it is (TempFiles), so that a killed writer's file is found and removed
    // by the next writer or `riffle gc`; createFile (not createTempFile) so the finished file gets
    // the usual umask permissions.
    Path temp = Files.createFile(TempFiles.newPath(target));
    FileChannel ch = null;
    try {
      ch = FileChannel.open(temp, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING);
      OutputStream s = new BufferedOutputStream(Channels.newOutputStream(ch), 1 << 20);
      return new FileWriter(rs, dictionaries, options, s, ch, temp, target, null);
    } catch (IOException | RuntimeException e) {
      if (ch != null) {
        ch.close();
      }
      TempFiles.discard(temp);
      throw e;
    }
  }

  /** Creates a writer for a file without dictionaries. */
  public static FileWriter create(Path target, Schema schema, WriterOptions options)
      throws IOException {
    return create(target, schema, null, options);
  }

  /**
   * Creates a writer onto a stream, for callers that handle publication themselves (datasets,
   * object stores). The stream is not closed by the writer.
   */
  public static FileWriter create(
      OutputStream stream, Schema schema, DictionaryProvider dictionaries, WriterOptions options)
      throws IOException {
    return create(stream, schema, dictionaries, options, null);
  }

  /**
   * A stream writer that continues the dictionary codes of another file's writer (see {@link
   * #dictionaryState()}), so that the files of one dataset share codes.
   */
  public static FileWriter create(
      OutputStream stream,
      Schema schema,
      DictionaryProvider dictionaries,
      WriterOptions options,
      SharedDictionaries sharedDictionaries)
      throws IOException {
    return new FileWriter(
        schemaFor(schema, dictionaries, options),
        dictionaries,
        options,
        stream,
        null,
        null,
        null,
        sharedDictionaries == null ? null : sharedDictionaries.columns);
  }

  /** Each column's dictionary code assignment so far, to continue in the dataset's next file. */
  public SharedDictionaries dictionaryState() {
    List<DictionaryRemapper> state = new ArrayList<>();
    for (ColumnWriter c : columns) {
      state.add(c.dictionary());
    }
    return new SharedDictionaries(state);
  }

  /** Bytes handed to the output so far (pages still buffered in memory are not counted). */
  public long bytesWritten() {
    return out.position();
  }

  private static RiffleSchema schemaFor(
      Schema schema, DictionaryProvider dictionaries, WriterOptions options) {
    Map<Integer, Field> values = new HashMap<>();
    List<Field> fields = schema.getFields();
    for (int i = 0; i < fields.size(); i++) {
      Field f = fields.get(i);
      if (f.getDictionary() != null) {
        Dictionary d = dictionaries == null ? null : dictionaries.lookup(f.getDictionary().getId());
        if (d == null) {
          throw new IllegalArgumentException(
              "field '"
                  + f.getName()
                  + "' is dictionary-encoded "
                  + "(id "
                  + f.getDictionary().getId()
                  + ") but no such dictionary was given");
        }
        Field v = d.getVector().getField();
        values.put(i, new Field(f.getName(), v.getFieldType(), v.getChildren()));
      }
    }
    return RiffleSchema.forWriting(schema, values, options.columnGroups());
  }

  /** The schema as it will be stored. */
  public RiffleSchema schema() {
    return schema;
  }

  /** Appends a batch, using the dictionaries given at creation. */
  public void write(VectorSchemaRoot batch) throws IOException {
    write(batch, dictionaries);
  }

  /**
   * Appends a batch whose dictionary-encoded fields refer to {@code batchDictionaries}.
   *
   * @throws IllegalArgumentException if the batch's fields differ from the writer's schema
   */
  public void write(VectorSchemaRoot batch, DictionaryProvider batchDictionaries)
      throws IOException {
    if (finished || failed) {
      throw new IllegalStateException("writer is " + (finished ? "finished" : "failed"));
    }
    checkSchema(batch.getSchema());
    List<List<FieldVector>> vectors = new ArrayList<>();
    for (ColumnWriter c : columns) {
      List<FieldVector> vs = new ArrayList<>();
      for (int f : c.spec().fields()) {
        vs.add(batch.getVector(f));
      }
      vectors.add(vs);
      if (c.dictionary() != null) {
        long id = arrow.getFields().get(c.spec().fields().get(0)).getDictionary().getId();
        Dictionary d = batchDictionaries == null ? null : batchDictionaries.lookup(id);
        if (d == null) {
          throw new IllegalArgumentException(
              "no dictionary with id " + id + " for field '" + c.spec().name() + "'");
        }
        c.dictionary().startBatch(d.getVector());
      }
    }
    try {
      int n = batch.getRowCount();
      // Row-major, so that pages are flushed in row order whatever the batch sizes: the same rows
      // always give the same bytes.
      for (int i = 0; i < n; i++) {
        for (int c = 0; c < columns.size(); c++) {
          ColumnWriter col = columns.get(c);
          col.append(vectors.get(c), i);
          if (col.pageFull()) {
            col.flush(out);
          }
        }
      }
      rowCount += n;
    } catch (IOException | RuntimeException e) {
      failed = true;
      throw e;
    }
  }

  private void checkSchema(Schema got) {
    List<Field> want = arrow.getFields();
    List<Field> have = got.getFields();
    if (want.size() != have.size()) {
      throw new IllegalArgumentException(
          "batch has " + have.size() + " fields, the file has " + want.size());
    }
    for (int i = 0; i < want.size(); i++) {
      if (!sameField(want.get(i), have.get(i))) {
        throw new IllegalArgumentException(
            "batch field " + i + " is " + have.get(i) + " but the file's is " + want.get(i));
      }
    }
  }

  /**
   * Compares fields as stored. The names of list, fixed-size list and map children are not
   * compared: Arrow itself names them variously ("item", "$data$", "element") for the same data.
   */
  private static boolean sameField(Field a, Field b) {
    return sameField(a, b, true);
  }

  private static boolean sameField(Field a, Field b, boolean compareName) {
    if ((compareName && !a.getName().equals(b.getName()))
        || a.isNullable() != b.isNullable()
        || !a.getType().equals(b.getType())
        || !java.util.Objects.equals(a.getDictionary(), b.getDictionary())
        || a.getChildren().size() != b.getChildren().size()) {
      return false;
    }
    for (int i = 0; i < a.getChildren().size(); i++) {
      boolean named = a.getType() instanceof org.apache.arrow.vector.types.pojo.ArrowType.Struct;
      if (!sameField(a.getChildren().get(i), b.getChildren().get(i), named)) {
        return false;
      }
    }
    return true;
  }

  /** Rows written so far. */
  public long rowCount() {
    return rowCount;
  }

  /**
   * Flushes the last pages, writes metadata and footer, and for a path-based writer syncs and
   * atomically renames the file into place.
   *
   * @return the file's length in bytes
   */
  public long finish() throws IOException {
    if (finished || failed) {
      throw new IllegalStateException("writer is " + (finished ? "finished" : "failed"));
    }
    try {
      for (ColumnWriter c : columns) {
        c.flush(out);
      }
      DirectoryLayout.Entry[] dir = new DirectoryLayout.Entry[columns.size()];
      out.padTo(8);
      for (int c = 0; c < columns.size(); c++) {
        ColumnWriter col = columns.get(c);
        byte[] block = col.block();
        long at = out.padTo(8);
        out.write(block, 0, block.length);
        dir[c] = new DirectoryLayout.Entry(at, block.length, col.dataBytes(), col.pageCount());
      }
      byte[] schemaBytes = SchemaLayout.write(schema);
      long schemaOffset = out.padTo(8);
      out.write(schemaBytes, 0, schemaBytes.length);
      long directoryOffset = out.position();
      ByteSink d = new ByteSink(columns.size() * DirectoryLayout.ENTRY_BYTES);
      for (DirectoryLayout.Entry e : dir) {
        DirectoryLayout.write(d, e);
      }
      out.write(d.array(), 0, d.length());
      byte[] footer =
          FooterLayout.write(
              FooterLayout.Footer.current(
                  schemaOffset,
                  schemaBytes.length,
                  directoryOffset,
                  columns.size(),
                  rowCount,
                  crc(schemaBytes, schemaBytes.length),
                  crc(d.array(), d.length())));
      out.write(footer, 0, footer.length);
      out.flush();
      finished = true;
      if (channel != null) {
        stream.close();
        // Forced to disk, renamed over the target, the directory synced: after a crash the target
        // is the old file or the whole new one.
        TempFiles.publish(temp, target);
      }
      return out.position();
    } catch (IOException | RuntimeException e) {
      failed = true;
      finished = false;
      throw e;
    }
  }

  private static int crc(byte[] b, int n) {
    CRC32C c = new CRC32C();
    c.update(b, 0, n);
    return (int) c.getValue();
  }

  /** Discards an unfinished file; a no-op after {@link #finish()}. */
  @Override
  public void close() throws IOException {
    if (channel == null) {
      return;
    }
    if (channel.isOpen()) {
      try {
        stream.close();
      } catch (IOException e) {
        // The temp file is being discarded or was already synced; nothing to report.
      }
    }
    if (temp != null && (!finished)) {
      TempFiles.discard(temp);
    }
  }
}

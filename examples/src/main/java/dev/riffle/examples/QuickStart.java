package dev.riffle.examples;

import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.storage.LocalStorage;
import dev.riffle.dataset.storage.Storage;
import dev.riffle.dataset.write.DatasetOptions;
import dev.riffle.dataset.write.DatasetWriter;
import dev.riffle.format.read.FileReader;
import dev.riffle.format.write.FileWriter;
import dev.riffle.format.write.WriterOptions;
import dev.riffle.loader.pipeline.Loader;
import dev.riffle.loader.pipeline.LoaderOptions;
import dev.riffle.loader.pipeline.SparseRows;
import dev.riffle.loader.plan.BlockShuffle;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.impl.UnionListWriter;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Writes 1,000 sparse rows (a cell's gene counts and its plate) as a Riffle file and as a dataset,
 * takes rows back by number, and loads one block-shuffled epoch as CSR minibatches. Run with a
 * directory to write into (a new temporary one without).
 */
public final class QuickStart {
  static final int ROWS = 1000;
  static final String[] PLATES = {"plate01", "plate02", "plate03"};

  private QuickStart() {}

  public static void main(String[] args) throws IOException {
    Path dir = args.length > 0 ? Path.of(args[0]) : Files.createTempDirectory("riffle-example");
    run(dir, System.out);
  }

  static void run(Path dir, PrintStream out) throws IOException {
    // plate is categorical: the batch holds int8 codes into a dictionary of names.
    DictionaryEncoding plateCodes = new DictionaryEncoding(1, false, new ArrowType.Int(8, true));
    Schema schema =
        new Schema(
            List.of(
                list("indices", new ArrowType.Int(32, true)),
                list("values", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)),
                new Field(
                    "plate", new FieldType(false, plateCodes.getIndexType(), plateCodes), null)));
    try (BufferAllocator allocator = new RootAllocator();
        VarCharVector plateNames = new VarCharVector("plate", allocator);
        VectorSchemaRoot batch = VectorSchemaRoot.create(schema, allocator)) {
      for (int p = 0; p < PLATES.length; p++) {
        plateNames.setSafe(p, PLATES[p].getBytes(StandardCharsets.UTF_8));
      }
      plateNames.setValueCount(PLATES.length);
      DictionaryProvider dictionaries =
          new DictionaryProvider.MapDictionaryProvider(new Dictionary(plateNames, plateCodes));
      fill(batch);

      // One file: any Arrow batches; a column group stores its columns row-major together.
      Path file = dir.resolve("cells.riffle");
      WriterOptions options = WriterOptions.defaults().withColumnGroup("indices", "values");
      try (FileWriter writer = FileWriter.create(file, schema, dictionaries, options)) {
        writer.write(batch); // as many batches as you like; memory stays bounded
        writer.finish(); // the file appears at `file` only now
      }
      try (FileReader reader = FileReader.open(file, allocator);
          VectorSchemaRoot rows =
              reader.take(new long[] {42, 7, 42}, List.of("indices", "plate"))) {
        // 3 rows in that order; a categorical column comes back as codes into its dictionary.
        BaseIntVector codes = (BaseIntVector) rows.getVector("plate");
        long id = rows.getVector("plate").getField().getDictionary().getId();
        VarCharVector names = (VarCharVector) reader.dictionaries().lookup(id).getVector();
        List<String> plates = new ArrayList<>();
        for (int r = 0; r < rows.getRowCount(); r++) {
          plates.add(names.getObject((int) codes.getValueAsLong(r)).toString());
        }
        out.println("take 42, 7, 42: plates " + plates + ", " + reader.stats().reads() + " reads");
      }

      // A dataset: versions published atomically, read as one space of global row ids.
      Storage storage =
          new LocalStorage(dir.resolve("cells")); // or HadoopStorage.open("s3a://b/p", Map.of())
      try (DatasetWriter writer =
          DatasetWriter.create(
              storage, schema, dictionaries, DatasetOptions.defaults().withFileOptions(options))) {
        writer.write(batch);
        writer.publish(); // version 1
      }
      // Blocks of 16 rows, 8 batches of 64 rows shuffled together; seed 42; one epoch.
      LoaderOptions loading = LoaderOptions.of(new BlockShuffle(16, 8, 0.25, false), 64, 42);
      long delivered = 0;
      long padding = 0;
      long entries = 0;
      try (Dataset dataset = Dataset.open(storage, allocator);
          Loader loader = Loader.open(dataset.all(), loading, allocator)) {
        VectorSchemaRoot next;
        while ((next = loader.next()) != null) {
          try (VectorSchemaRoot minibatch = next) { // the caller closes each minibatch
            SparseRows x = SparseRows.of(minibatch, "indices", "values"); // CSR arrays
            boolean[] pad = loader.lastPadding(); // rows that only fill the last batch: mask them
            for (int r = 0; r < x.rowCount(); r++) {
              if (pad[r]) {
                padding++;
              } else {
                delivered++;
                entries += x.indptr()[r + 1] - x.indptr()[r];
              }
            }
          }
        }
      }
      out.println(
          "loaded " + delivered + " rows (" + entries + " entries) and " + padding + " padding");
    }
  }

  /** Row i: genes i % 50 + 10k for k = 0 .. i % 5, counted k + 1 times; on plate i % 3. */
  static void fill(VectorSchemaRoot batch) {
    UnionListWriter indices = ((ListVector) batch.getVector("indices")).getWriter();
    UnionListWriter values = ((ListVector) batch.getVector("values")).getWriter();
    TinyIntVector plate = (TinyIntVector) batch.getVector("plate");
    for (int i = 0; i < ROWS; i++) {
      indices.setPosition(i);
      values.setPosition(i);
      indices.startList();
      values.startList();
      for (int k = 0; k <= i % 5; k++) {
        indices.writeInt(i % 50 + 10 * k);
        values.writeFloat4(k + 1);
      }
      indices.endList();
      values.endList();
      plate.setSafe(i, i % PLATES.length);
    }
    batch.setRowCount(ROWS);
  }

  /** A non-null list of non-null values. */
  static Field list(String name, ArrowType item) {
    return new Field(
        name,
        FieldType.notNullable(ArrowType.List.INSTANCE),
        List.of(new Field("item", FieldType.notNullable(item), null)));
  }
}

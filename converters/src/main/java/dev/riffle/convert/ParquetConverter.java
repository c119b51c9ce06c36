package dev.riffle.convert;

import dev.riffle.dataset.Manifest;
import dev.riffle.dataset.storage.Storage;
import dev.riffle.dataset.write.DatasetWriter;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Converts Parquet files into a new Riffle dataset. Footers are read and every file hashed first
 * (in parallel), so that a schema that differs fails before anything is written and the provenance
 * is complete at publish. Files are then decoded by {@link ConvertOptions#threads()} workers, each
 * a few batches ahead of the single writer, which takes the files' batches in input order: the
 * dataset's rows are the files' rows in order, whatever the thread timing. String columns named in
 * {@link ConvertOptions#categorical()} are read alone first, for their dictionaries, and the
 * workers encode them ({@link Categoricals}).
 */
public final class ParquetConverter {
  /**
   * The manifest metadata key naming the columns that came from key=value directories ({@link
   * HivePartitions}), comma-separated; absent where there were none.
   */
  public static final String PARTITION_COLUMNS_KEY = "parquet.partitionColumns";

  /** The tool name recorded in the provenance. */
  public static final String TOOL = "riffle convert parquet";

  /** Batches a worker may hold ready ahead of the writer. */
  private static final int QUEUE = 2;

  private static final Object END = new Object();

  private ParquetConverter() {}

  /**
   * Writes version 1 of a new dataset at {@code out} from {@code inputs}.
   *
   * @throws InputException naming the file, for bad input or schemas that differ
   * @throws java.nio.file.FileAlreadyExistsException if a dataset exists at {@code out}
   */
  public static ConvertResult convert(
      List<SourceFile> inputs, Storage out, BufferAllocator allocator, ConvertOptions options)
      throws IOException {
    if (inputs.isEmpty()) {
      throw new IllegalArgumentException("no input files");
    }
    long start = System.nanoTime();
    ExecutorService pool =
        Executors.newFixedThreadPool(
            Math.min(options.threads(), inputs.size()),
            r -> {
              Thread t = new Thread(r, "riffle-convert");
              t.setDaemon(true);
              return t;
            });
    try {
      List<Footer> footers = inspect(inputs, pool);
      Schema fileSchema = footers.get(0).schema;
      for (int i = 1; i < footers.size(); i++) {
        String diff = SchemaDiff.first(fileSchema, footers.get(i).schema, inputs.get(0).name());
        if (diff != null) {
          throw new InputException(inputs.get(i).name(), "schema differs: " + diff);
        }
      }
      HivePartitions partitions = HivePartitions.of(inputs);
      Schema schema = partitions.extend(fileSchema, inputs.get(0).name());
      options = options.forInput(schema, out);
      options = options.withCategorical(categorical(options, partitions));
      List<Manifest.Source> sources = new ArrayList<>();
      long bytesIn = 0;
      for (int i = 0; i < inputs.size(); i++) {
        sources.add(
            new Manifest.Source(
                inputs.get(i).name(), inputs.get(i).length(), footers.get(i).sha256));
        bytesIn += inputs.get(i).length();
      }
      var dataset =
          options
              .dataset()
              .withProvenance(new Manifest.Provenance(TOOL, ConvertOptions.version(), sources));
      if (!partitions.isEmpty()) {
        Map<String, String> metadata = new LinkedHashMap<>(dataset.metadata());
        metadata.put(PARTITION_COLUMNS_KEY, String.join(",", partitions.keys()));
        dataset = dataset.withMetadata(metadata);
      }
      try (Categoricals categoricals =
              categoricals(inputs, schema, partitions, out, pool, allocator, options);
          DatasetWriter writer =
              options.writer(
                  inputs.get(0).name(),
                  out,
                  categoricals.schema(),
                  categoricals.dictionaries(null),
                  dataset)) {
        long rows = pipeline(inputs, writer, pool, allocator, options, partitions, categoricals);
        Manifest m = writer.publish();
        return new ConvertResult(
            rows, bytesIn, ConvertResult.dataBytes(m), System.nanoTime() - start, m);
      }
    } finally {
      pool.shutdownNow();
      try {
        pool.awaitTermination(1, TimeUnit.MINUTES);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** A file's Arrow schema and hash. */
  private record Footer(Schema schema, String sha256) {}

  private static List<Footer> inspect(List<SourceFile> inputs, ExecutorService pool)
      throws IOException {
    List<Future<Footer>> futures = new ArrayList<>();
    for (SourceFile f : inputs) {
      futures.add(
          pool.submit(
              () -> {
                Schema s;
                try (ParquetBatchReader r = ParquetBatchReader.open(f.inputFile(), f.name())) {
                  s = r.arrowSchema();
                }
                return new Footer(s, f.sha256());
              }));
    }
    List<Footer> out = new ArrayList<>();
    for (Future<Footer> fu : futures) {
      out.add(await(fu));
    }
    return out;
  }

  /**
   * The string columns to make categorical, with their dictionaries from a first pass that reads
   * only those columns of every file (in parallel; see {@link Categoricals}).
   */
  /** The columns to make categorical: those asked for, and every string partition column. */
  private static List<String> categorical(ConvertOptions options, HivePartitions partitions) {
    List<String> out = new ArrayList<>(options.categorical());
    for (String key : partitions.stringKeys()) {
      if (!out.contains(key)) {
        out.add(key);
      }
    }
    return out;
  }

  private static Categoricals categoricals(
      List<SourceFile> inputs,
      Schema schema,
      HivePartitions partitions,
      Storage out,
      ExecutorService pool,
      BufferAllocator allocator,
      ConvertOptions options)
      throws IOException {
    int[] columns = Categoricals.resolve(schema, options.categorical(), inputs.get(0).name());
    if (columns.length == 0) {
      return Categoricals.none(schema);
    }
    // The files' columns are read for their values; partition columns' values are in the paths.
    List<String> names = new ArrayList<>();
    for (int c : columns) {
      String name = schema.getFields().get(c).getName();
      if (!partitions.keys().contains(name)) {
        names.add(name);
      }
    }
    List<Future<List<Categoricals.Distinct>>> futures = new ArrayList<>();
    for (SourceFile f : names.isEmpty() ? List.<SourceFile>of() : inputs) {
      futures.add(
          pool.submit(
              () -> {
                List<Categoricals.Distinct> values = distinct(names);
                List<Consumer<byte[]>> sinks = new ArrayList<>();
                values.forEach(v -> sinks.add(v::add));
                try (ParquetBatchReader r = ParquetBatchReader.open(f.inputFile(), f.name())) {
                  r.forEachValue(names, sinks);
                }
                return values;
              }));
    }
    List<Categoricals.Distinct> read = distinct(names);
    for (Future<List<Categoricals.Distinct>> fu : futures) {
      List<Categoricals.Distinct> file = await(fu);
      for (int c = 0; c < read.size(); c++) {
        read.get(c).addAll(file.get(c));
      }
    }
    List<Categoricals.Distinct> all = new ArrayList<>();
    for (int c : columns) {
      String name = schema.getFields().get(c).getName();
      if (partitions.keys().contains(name)) {
        Categoricals.Distinct d = new Categoricals.Distinct(name);
        partitions.distinct(name).forEach(d::add);
        all.add(d);
      } else {
        all.add(read.get(names.indexOf(name)));
      }
    }
    return Categoricals.build(schema, columns, all, out, options, allocator);
  }

  private static List<Categoricals.Distinct> distinct(List<String> names) {
    List<Categoricals.Distinct> out = new ArrayList<>();
    names.forEach(n -> out.add(new Categoricals.Distinct(n)));
    return out;
  }

  private static <T> T await(Future<T> f) throws IOException {
    try {
      return f.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException("interrupted");
    } catch (ExecutionException e) {
      Throwable c = e.getCause();
      if (c instanceof IOException) {
        throw (IOException) c;
      }
      if (c instanceof RuntimeException) {
        throw (RuntimeException) c;
      }
      throw new IOException(c);
    }
  }

  private static long pipeline(
      List<SourceFile> inputs,
      DatasetWriter writer,
      ExecutorService pool,
      BufferAllocator allocator,
      ConvertOptions options,
      HivePartitions partitions,
      Categoricals categoricals)
      throws IOException {
    List<BlockingQueue<Object>> queues = new ArrayList<>();
    List<Future<?>> workers = new ArrayList<>();
    for (SourceFile f : inputs) {
      BlockingQueue<Object> q = new ArrayBlockingQueue<>(QUEUE);
      queues.add(q);
      workers.add(pool.submit(() -> decode(f, allocator, options, partitions, categoricals, q)));
    }
    long rows = 0;
    try {
      for (BlockingQueue<Object> q : queues) {
        while (true) {
          Object item = q.take();
          if (item == END) {
            break;
          }
          if (item instanceof Throwable) {
            throw rethrow((Throwable) item);
          }
          try (VectorSchemaRoot batch = (VectorSchemaRoot) item) {
            writer.write(batch);
            rows += batch.getRowCount();
          }
        }
      }
      return rows;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException("interrupted");
    } finally {
      workers.forEach(w -> w.cancel(true));
      pool.shutdownNow();
      try {
        pool.awaitTermination(1, TimeUnit.MINUTES);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      // Batches decoded but never written: free them (a failure or an interrupt got here).
      for (BlockingQueue<Object> q : queues) {
        for (Object o : q) {
          if (o instanceof VectorSchemaRoot) {
            ((VectorSchemaRoot) o).close();
          }
        }
      }
    }
  }

  private static void decode(
      SourceFile f,
      BufferAllocator allocator,
      ConvertOptions options,
      HivePartitions partitions,
      Categoricals categoricals,
      BlockingQueue<Object> q) {
    try {
      try (ParquetBatchReader r = ParquetBatchReader.open(f.inputFile(), f.name())) {
        r.read(
            allocator,
            options.batchRows(),
            options.batchBytes(),
            decoded -> {
              VectorSchemaRoot batch =
                  categoricals.encodeOwned(
                      partitions.extend(decoded, f, allocator), allocator, f.name());
              try {
                q.put(batch);
              } catch (InterruptedException e) {
                batch.close();
                throw e;
              }
            },
            options.progress());
      }
      q.put(END);
    } catch (InterruptedException e) {
      // Cancelled: the writer stopped reading.
    } catch (Throwable e) {
      Throwable reported =
          e instanceof IOException
              ? e
              : new InputException(f.name(), ParquetBatchReader.oneLine(e), e);
      try {
        q.put(reported);
      } catch (InterruptedException ie) {
        // Cancelled meanwhile.
      }
    }
  }

  private static IOException rethrow(Throwable t) {
    if (t instanceof IOException) {
      return (IOException) t;
    }
    return new IOException(t);
  }
}

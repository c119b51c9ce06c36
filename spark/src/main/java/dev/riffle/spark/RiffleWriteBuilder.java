package dev.riffle.spark;

import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.DatasetLayout;
import dev.riffle.dataset.Manifest;
import dev.riffle.dataset.ManifestCodec;
import dev.riffle.dataset.storage.Storage;
import dev.riffle.dataset.write.DatasetCommit;
import dev.riffle.dataset.write.PublishOutcomeUnknownException;
import dev.riffle.dataset.write.WriterLease;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.connector.expressions.filter.AlwaysTrue;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.connector.write.BatchWrite;
import org.apache.spark.sql.connector.write.DataWriterFactory;
import org.apache.spark.sql.connector.write.PhysicalWriteInfo;
import org.apache.spark.sql.connector.write.SupportsOverwriteV2;
import org.apache.spark.sql.connector.write.Write;
import org.apache.spark.sql.connector.write.WriteBuilder;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.apache.spark.sql.types.StructType;

/**
 * The driver's side of a write: picks the Arrow schema (the DataFrame's mapping, or the dataset's
 * own when appending), checks on the driver that every column can be written, and publishes one
 * manifest from the tasks' files, ordered by partition id, so that the same job gives the same row
 * ids. If the job fails or is aborted, the committed tasks' files are deleted and nothing is
 * published.
 */
final class RiffleWriteBuilder implements SupportsOverwriteV2, Write, BatchWrite {
  private final RiffleOptions options;

  /** The session's Hadoop configuration for a non-local location, else null. */
  private final Configuration hadoopConf;

  private final StructType sparkSchema;

  /** The schema the version is written with: set by {@link #build()}. */
  private Schema arrowSchema;

  private final String queryId;

  /**
   * Starts the name of every file of this job, so that an abort also finds the files of tasks that
   * committed while the job was failing (Spark drops their messages).
   */
  private final String namePrefix;

  private volatile boolean published;

  /** Set when publishing failed without saying whether the manifest was created. */
  private volatile boolean outcomeUnknown;

  /**
   * The job's lease on the location, from the start of the tasks until the commit or abort: it
   * protects every file named with {@link #namePrefix} from {@code riffle gc}, also between a task
   * handing its files over and the commit. Null before the tasks start.
   */
  private Storage leaseStorage;

  private WriterLease lease;

  RiffleWriteBuilder(RiffleOptions options, StructType sparkSchema, String queryId) {
    this.options = options;
    this.hadoopConf = Storages.driverConf(options.location());
    this.namePrefix = "spark-" + queryId.replaceAll("[^A-Za-z0-9]", "") + "-";
    this.sparkSchema = sparkSchema;
    this.queryId = queryId;
  }

  private static Schema existingSchema(RiffleOptions o, Configuration conf) {
    try (Storage storage = Storages.open(o.location(), conf)) {
      Manifest m = Dataset.readManifest(storage, Dataset.latestVersion(storage));
      return ManifestCodec.schemaOf(m, storage.uri(Manifest.path(m.version()))).arrow();
    } catch (IOException e) {
      throw new UncheckedIOException(e.getMessage(), e);
    }
  }

  @Override
  public Write build() {
    arrowSchema =
        options.commit() == DatasetCommit.Mode.APPEND
            ? existingSchema(options, hadoopConf)
            : SparkTypes.toArrow(sparkSchema, options.vectorFloat32());
    // Every (Spark type, Arrow type) pair is checked here, before a task starts.
    try (RootAllocator allocator = new RootAllocator();
        VectorSchemaRoot probe = VectorSchemaRoot.create(arrowSchema, allocator)) {
      new RowWriter(probe, sparkSchema);
    }
    return this;
  }

  /**
   * {@code INSERT OVERWRITE} and {@code writeTo(...).overwrite(lit(true))} of a catalog table: a
   * new version that holds only the new rows, with the DataFrame's columns; the older versions stay
   * readable ({@code VERSION AS OF}).
   */
  @Override
  public WriteBuilder truncate() {
    return new RiffleWriteBuilder(
        options.withCommit(DatasetCommit.Mode.OVERWRITE), sparkSchema, queryId);
  }

  /**
   * Only the overwrite of every row ({@link #truncate()}): a version holds whole rows, not a
   * replacement of the rows a filter selects.
   */
  @Override
  public WriteBuilder overwrite(Predicate[] predicates) {
    for (Predicate p : predicates) {
      if (!(p instanceof AlwaysTrue)) {
        throw AnalysisErrors.of(
            "riffle "
                + options.location()
                + ": overwriting only the rows where "
                + p
                + " is not supported; INSERT OVERWRITE without a condition (or"
                + " writeTo(...).overwrite(lit(true))) writes a new version with only the new rows,"
                + " and the older versions stay readable");
      }
    }
    return truncate();
  }

  @Override
  public String description() {
    return "riffle "
        + options.commit().name().toLowerCase(java.util.Locale.ROOT)
        + " "
        + options.location();
  }

  @Override
  public BatchWrite toBatch() {
    return this;
  }

  @Override
  public DataWriterFactory createBatchWriterFactory(PhysicalWriteInfo info) {
    takeLease();
    return new TaskWriterFactory(
        options,
        TaskStorage.of(options.location(), hadoopConf),
        arrowSchema.toJson(),
        sparkSchema,
        namePrefix);
  }

  @Override
  public boolean useCommitCoordinator() {
    // One committed attempt per partition: its files, and no other attempt's, reach the driver.
    return true;
  }

  private synchronized void takeLease() {
    if (lease != null) {
      return;
    }
    Storage storage = Storages.open(options.location(), hadoopConf);
    try {
      WriterLease l = WriterLease.acquire(storage, "spark " + description());
      l.addPrefix(namePrefix);
      leaseStorage = storage;
      lease = l;
    } catch (IOException e) {
      closeQuietly(storage);
      throw new UncheckedIOException(e.getMessage(), e);
    }
  }

  /** Ends the job's lease: after the manifest is published, or after the files are deleted. */
  private synchronized void releaseLease() {
    if (lease != null) {
      lease.close();
      lease = null;
      closeQuietly(leaseStorage);
      leaseStorage = null;
    }
  }

  private static void closeQuietly(Storage storage) {
    try {
      storage.close();
    } catch (IOException e) {
      // Nothing was written through it but the lease, which is gone or goes stale.
    }
  }

  @Override
  public void commit(WriterCommitMessage[] messages) {
    try {
      commitFiles(messages);
    } finally {
      releaseLease();
    }
  }

  private void commitFiles(WriterCommitMessage[] messages) {
    List<TaskFiles> tasks = new ArrayList<>();
    for (WriterCommitMessage m : messages) {
      tasks.add((TaskFiles) Objects.requireNonNull(m, "a task sent no commit message"));
    }
    tasks.sort(Comparator.comparingInt(TaskFiles::partitionId));
    List<Manifest.DataFile> files = new ArrayList<>();
    tasks.forEach(t -> files.addAll(t.dataFiles()));
    try (Storage storage = Storages.open(options.location(), hadoopConf)) {
      if (lease != null) {
        lease.check();
      }
      DatasetCommit.publish(
          storage, options.commit(), arrowSchema, null, options.datasetOptions(), files);
      published = true;
    } catch (PublishOutcomeUnknownException e) {
      // The version may exist and name these files: abort must leave them (gc's to remove).
      outcomeUnknown = true;
      throw new UncheckedIOException(e.getMessage(), e);
    } catch (IOException e) {
      throw new UncheckedIOException(e.getMessage(), e);
    }
  }

  @Override
  public void abort(WriterCommitMessage[] messages) {
    try {
      abortFiles(messages);
    } finally {
      releaseLease();
    }
  }

  private void abortFiles(WriterCommitMessage[] messages) {
    if (published || outcomeUnknown) {
      return;
    }
    try (Storage storage = Storages.open(options.location(), hadoopConf)) {
      Arrays.stream(messages)
          .filter(Objects::nonNull)
          .forEach(m -> DatasetCommit.discard(storage, ((TaskFiles) m).dataFiles()));
      // Tasks whose commit raced the failure: their messages never arrive, their files are here.
      List<Manifest.DataFile> late = new ArrayList<>();
      for (String name : storage.list(DatasetLayout.DATA_DIR)) {
        if (name.startsWith(namePrefix)) {
          late.add(new Manifest.DataFile(DatasetLayout.DATA_DIR + "/" + name, 0, null, 0, 0, null));
        }
      }
      DatasetCommit.discard(storage, late);
    } catch (IOException e) {
      throw new UncheckedIOException(e.getMessage(), e);
    }
  }
}

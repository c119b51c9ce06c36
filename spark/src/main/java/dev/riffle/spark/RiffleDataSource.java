package dev.riffle.spark;

import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.storage.Storage;
import dev.riffle.dataset.write.DatasetCommit;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SQLContext;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableProvider;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.sources.BaseRelation;
import org.apache.spark.sql.sources.CreatableRelationProvider;
import org.apache.spark.sql.sources.DataSourceRegister;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * The {@code riffle} data source: {@code spark.read.format("riffle").load(uri)} and {@code
 * df.write.format("riffle").mode(m).save(uri)}.
 *
 * <p>Reads go through DataSource V2 ({@link RiffleTable}). Writes enter through the V1 {@link
 * CreatableRelationProvider} because Spark sends only append and overwrite of a path-based V2 table
 * to V2 and rejects error-if-exists and ignore there; this entry point decides what the save mode
 * means for the dataset (create, append, overwrite as a new version, or nothing) and then runs the
 * distributed V2 write with that decision attached, so that every mode has one write path.
 */
public final class RiffleDataSource
    implements TableProvider, DataSourceRegister, CreatableRelationProvider {
  /**
   * The version {@link #inferSchema} read, handed to the table so that the schema and the rows come
   * from the same version even if another is published in between: a DataFrame reads one version,
   * whatever it is asked later. Spark makes a provider per load and asks it for the schema and then
   * the table, from one thread.
   */
  private DatasetSnapshot inferred;

  @Override
  public String shortName() {
    return "riffle";
  }

  @Override
  public StructType inferSchema(CaseInsensitiveStringMap options) {
    inferred = DatasetSnapshot.load(RiffleOptions.parse(options));
    return inferred.sparkSchema();
  }

  /** True so that writes hand over the DataFrame's schema instead of inferring one. */
  @Override
  public boolean supportsExternalMetadata() {
    return true;
  }

  @Override
  public Table getTable(
      StructType schema, Transform[] partitioning, Map<String, String> properties) {
    if (partitioning.length > 0) {
      throw new IllegalArgumentException(
          "riffle datasets are not partitioned by column; drop partitionBy");
    }
    DatasetSnapshot pinned = inferred;
    inferred = null;
    boolean same =
        pinned != null
            && pinned.sparkSchema().equals(schema)
            && pinned.options().equals(RiffleOptions.parse(properties));
    return new RiffleTable(schema, properties, same ? pinned : null);
  }

  /** Every type reaches the connector's own mapping, whose error names the column. */
  @Override
  public boolean supportsDataType(DataType dataType) {
    return true;
  }

  @Override
  public BaseRelation createRelation(
      SQLContext sqlContext,
      SaveMode mode,
      scala.collection.immutable.Map<String, String> parameters,
      org.apache.spark.sql.Dataset<Row> data) {
    Map<String, String> options =
        new HashMap<>(scala.jdk.javaapi.CollectionConverters.asJava(parameters));
    RiffleOptions o = RiffleOptions.parseWrite(options);
    // Fails before any task runs if a column has no Riffle type.
    SparkTypes.toArrow(data.schema());
    List<Long> versions;
    String foreign;
    try (Storage storage = Storages.open(o.location())) {
      versions = Dataset.versions(storage);
      foreign = versions.isEmpty() ? Storages.foreignContent(storage) : null;
    } catch (IOException e) {
      throw new UncheckedIOException(e.getMessage(), e);
    }
    boolean exists = !versions.isEmpty();
    // As Spark's file sources do, ignore leaves any existing data alone, a dataset or not.
    if (mode == SaveMode.Ignore && (exists || foreign != null)) {
      return new RiffleRelation(sqlContext, data.schema());
    }
    if (foreign != null) {
      // Riffle never deletes what it did not write, so no mode can write a dataset over it.
      throw new IllegalStateException(
          "cannot write a Riffle dataset at " + o.location() + ": the location " + foreign);
    }
    DatasetCommit.Mode commit;
    switch (mode) {
      case ErrorIfExists:
        if (exists) {
          throw new IllegalStateException(
              "a Riffle dataset already exists at "
                  + o.location()
                  + " (latest version "
                  + versions.get(versions.size() - 1)
                  + "); write with mode(\"append\") or mode(\"overwrite\")");
        }
        commit = DatasetCommit.Mode.CREATE;
        break;
      case Ignore:
        commit = DatasetCommit.Mode.CREATE;
        break;
      case Append:
        commit = exists ? DatasetCommit.Mode.APPEND : DatasetCommit.Mode.CREATE;
        break;
      case Overwrite:
        commit = DatasetCommit.Mode.OVERWRITE;
        break;
      default:
        throw new IllegalArgumentException("unknown save mode " + mode);
    }
    options.put(RiffleOptions.COMMIT, commit.name());
    data.write()
        .format(RiffleDataSource.class.getName())
        .mode(SaveMode.Append)
        .options(options)
        .save();
    return new RiffleRelation(sqlContext, data.schema());
  }

  /** What Spark's V1 write path wants back; nothing reads through it. */
  private static final class RiffleRelation extends BaseRelation {
    private final SQLContext sqlContext;
    private final StructType schema;

    RiffleRelation(SQLContext sqlContext, StructType schema) {
      this.sqlContext = sqlContext;
      this.schema = schema;
    }

    @Override
    public SQLContext sqlContext() {
      return sqlContext;
    }

    @Override
    public StructType schema() {
      return schema;
    }
  }
}

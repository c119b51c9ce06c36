package dev.riffle.spark;

import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.connector.catalog.MetadataColumn;
import org.apache.spark.sql.connector.catalog.SupportsMetadataColumns;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.SupportsWrite;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.catalog.TableCatalog;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.WriteBuilder;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * A dataset location as a Spark table: readable always; writable by the write that {@link
 * RiffleDataSource#createRelation} starts (which carries the commit mode), so that every save mode
 * of {@code df.write} goes through that entry point, and, as a table of {@link RiffleCatalog} at
 * its latest version, by appends ({@code INSERT INTO}, {@code writeTo(...).append()}) and
 * overwrites as a new version ({@code INSERT OVERWRITE}, {@code
 * writeTo(...).overwrite(lit(true))}), whose columns Spark has already matched to the table's.
 */
final class RiffleTable implements SupportsRead, SupportsWrite, SupportsMetadataColumns {
  /** The {@code _row_id} metadata column as the scan returns it. */
  static final StructField ROW_ID_FIELD =
      new StructField(RowIds.COLUMN, DataTypes.LongType, false, Metadata.empty());

  private final StructType schema;
  private final Map<String, String> properties;
  private final DatasetSnapshot pinned;
  private final Map<String, String> tableProperties;
  private final boolean appendable;

  /**
   * @param pinned the version the schema was read from, which scans then read, or null to read what
   *     the options name when scanning
   */
  RiffleTable(StructType schema, Map<String, String> properties, DatasetSnapshot pinned) {
    this(schema, properties, pinned, Map.of(), false);
  }

  /**
   * @param properties the options every scan and write starts from (the location, the version)
   * @param tableProperties what {@code DESCRIBE TABLE EXTENDED} shows (provider, location)
   * @param appendable whether writes without a commit mode append (a catalog table at its latest)
   */
  RiffleTable(
      StructType schema,
      Map<String, String> properties,
      DatasetSnapshot pinned,
      Map<String, String> tableProperties,
      boolean appendable) {
    this.schema = schema;
    this.properties = properties;
    this.pinned = pinned;
    this.tableProperties = tableProperties;
    this.appendable = appendable;
  }

  @Override
  public Map<String, String> properties() {
    return tableProperties;
  }

  @Override
  public String name() {
    return "riffle:" + properties.getOrDefault("path", "?");
  }

  @Override
  // Parquet (or Spark) still calls this override; its replacement is not in the version we use
  @SuppressWarnings("deprecation")
  public StructType schema() {
    return schema;
  }

  /**
   * {@code _row_id}, the row's global id in the version (what takes, splits and deletions use),
   * unless the dataset has a column of that name.
   */
  @Override
  public MetadataColumn[] metadataColumns() {
    if (java.util.Arrays.asList(schema.fieldNames()).contains(RowIds.COLUMN)) {
      return new MetadataColumn[0];
    }
    return new MetadataColumn[] {
      new MetadataColumn() {
        @Override
        public String name() {
          return RowIds.COLUMN;
        }

        @Override
        public DataType dataType() {
          return DataTypes.LongType;
        }

        @Override
        public boolean isNullable() {
          return false;
        }

        @Override
        public String comment() {
          return "the row's global id in the dataset version (filters on it become takes)";
        }
      }
    };
  }

  @Override
  public Set<TableCapability> capabilities() {
    boolean writing =
        appendable || new CaseInsensitiveStringMap(properties).containsKey(RiffleOptions.COMMIT);
    if (appendable) {
      // A catalog table at its latest version: INSERT OVERWRITE, as a new version (a condition
      // other than true is refused by RiffleWriteBuilder, naming it).
      return EnumSet.of(
          TableCapability.BATCH_READ,
          TableCapability.BATCH_WRITE,
          TableCapability.TRUNCATE,
          TableCapability.OVERWRITE_BY_FILTER);
    }
    return writing
        ? EnumSet.of(TableCapability.BATCH_READ, TableCapability.BATCH_WRITE)
        : EnumSet.of(TableCapability.BATCH_READ);
  }

  @Override
  public ScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
    Map<String, String> all = new HashMap<>(properties);
    all.putAll(options);
    RiffleOptions o = RiffleOptions.parse(all);
    DatasetSnapshot snapshot =
        pinned != null && pinned.options().equals(o) ? pinned : DatasetSnapshot.load(o);
    if (!snapshot.sparkSchema().equals(schema)) {
      if (new CaseInsensitiveStringMap(properties).containsKey(TableCatalog.PROP_PROVIDER)) {
        // A session catalog table whose schema was changed in the catalog only: Spark's ALTER
        // TABLE ADD COLUMNS on it succeeds without asking the source.
        throw AnalysisErrors.of(
            "the catalog's schema of the riffle table at "
                + o.location()
                + " is not the dataset's: "
                + difference(snapshot.sparkSchema(), schema)
                + "; a Riffle dataset's columns do not change with ALTER TABLE: drop the table and"
                + " create it again with CREATE TABLE ... USING riffle LOCATION '"
                + o.location()
                + "', and write new columns as a new version of the dataset");
      }
      throw new IllegalArgumentException(
          "riffle reads "
              + o.location()
              + " with the dataset's own schema, and the user-specified one differs: "
              + difference(snapshot.sparkSchema(), schema)
              + "; drop .schema(...)");
    }
    return new RiffleScanBuilder(snapshot);
  }

  /** The first column where the user's schema differs from the dataset's, nullability included. */
  static String difference(StructType dataset, StructType user) {
    List<String> have = RowWriter.names(dataset);
    List<String> want = RowWriter.names(user);
    if (!have.equals(want)) {
      return "the dataset's columns are " + have + ", not " + want;
    }
    for (int i = 0; i < dataset.fields().length; i++) {
      StructField d = dataset.fields()[i];
      StructField u = user.fields()[i];
      if (!d.equals(u)) {
        return "column '"
            + d.name()
            + "' is "
            + describe(d)
            + " in the dataset but "
            + describe(u)
            + " in the user-specified schema";
      }
    }
    return dataset.catalogString() + " vs " + user.catalogString();
  }

  private static String describe(StructField f) {
    return f.dataType().catalogString()
        + (f.nullable() ? " (nullable)" : " NOT NULL")
        + (f.metadata().json().equals("{}") ? "" : " with metadata " + f.metadata().json());
  }

  @Override
  public WriteBuilder newWriteBuilder(LogicalWriteInfo info) {
    Map<String, String> all = new HashMap<>(properties);
    all.putAll(info.options());
    if (appendable && !new CaseInsensitiveStringMap(all).containsKey(RiffleOptions.COMMIT)) {
      all.put(RiffleOptions.COMMIT, dev.riffle.dataset.write.DatasetCommit.Mode.APPEND.name());
    }
    RiffleOptions o = RiffleOptions.parse(all);
    if (o.commit() == null) {
      throw new IllegalStateException("riffle writes start at df.write.format(\"riffle\")");
    }
    return new RiffleWriteBuilder(o, info.schema(), info.queryId());
  }
}

package dev.riffle.spark;

import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.storage.Storage;
import dev.riffle.dataset.write.DatasetCommit;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.catalyst.analysis.NoSuchTableException;
import org.apache.spark.sql.catalyst.analysis.TableAlreadyExistsException;
import org.apache.spark.sql.connector.catalog.CatalogV2Util;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.ProcedureCatalog;
import org.apache.spark.sql.connector.catalog.StagedTable;
import org.apache.spark.sql.connector.catalog.StagingTableCatalog;
import org.apache.spark.sql.connector.catalog.SupportsWrite;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.catalog.TableCatalog;
import org.apache.spark.sql.connector.catalog.TableChange;
import org.apache.spark.sql.connector.catalog.TableInfo;
import org.apache.spark.sql.connector.catalog.TableWritePrivilege;
import org.apache.spark.sql.connector.catalog.procedures.UnboundProcedure;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.WriteBuilder;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * Riffle datasets in Spark SQL, named by their location: with {@code
 * spark.sql.catalog.riffle=dev.riffle.spark.RiffleCatalog}, {@code SELECT * FROM
 * riffle.`/data/atlas`} reads the dataset at that path (or {@code s3a://...} URI), {@code VERSION
 * AS OF n} and {@code TIMESTAMP AS OF ts} read an older version by the same rules as the reader's
 * {@code versionAsOf}/{@code timestampAsOf} options, and {@code WITH ('split' = 'train')} reads a
 * split. {@code INSERT INTO} appends a version; {@code CREATE TABLE ... AS SELECT} creates a
 * dataset.
 *
 * <p>The catalog keeps no state: a location is the whole name, so there is nothing to list, and
 * what changes a dataset's schema or deletes it (ALTER, DROP, RENAME, REPLACE) is refused with what
 * to do instead, rather than done half: a dataset's columns are those its versions were written
 * with.
 */
public final class RiffleCatalog implements StagingTableCatalog, ProcedureCatalog {
  private String name = "riffle";

  @Override
  public void initialize(String name, CaseInsensitiveStringMap options) {
    this.name = name;
  }

  @Override
  public String name() {
    return name;
  }

  /** Locations are not enumerable; a dataset is named by its path. */
  @Override
  public Identifier[] listTables(String[] namespace) {
    return new Identifier[0];
  }

  /**
   * A read of a location without a dataset fails naming it (Spark would otherwise go on to try the
   * name as a direct query on files and report that riffle does not support those).
   */
  @Override
  public Table loadTable(Identifier ident) throws NoSuchTableException {
    return load(ident, Map.of());
  }

  /**
   * The load of a write: a missing table is Spark's {@link NoSuchTableException}, so that {@code
   * saveAsTable} creates the dataset.
   */
  @Override
  public Table loadTable(Identifier ident, Set<TableWritePrivilege> privileges)
      throws NoSuchTableException {
    if (!exists(location(ident))) {
      throw new NoSuchTableException(ident);
    }
    return load(ident, Map.of());
  }

  @Override
  public boolean tableExists(Identifier ident) {
    return exists(location(ident));
  }

  /** {@code VERSION AS OF}: the reader's {@code versionAsOf}. */
  @Override
  public Table loadTable(Identifier ident, String version) throws NoSuchTableException {
    return load(ident, Map.of("versionAsOf", version));
  }

  /**
   * {@code TIMESTAMP AS OF}, in microseconds since the epoch: the reader's {@code timestampAsOf}.
   */
  @Override
  public Table loadTable(Identifier ident, long timestampMicros) throws NoSuchTableException {
    Instant at =
        Instant.ofEpochSecond(
            Math.floorDiv(timestampMicros, 1_000_000L),
            Math.floorMod(timestampMicros, 1_000_000L) * 1000L);
    return load(ident, Map.of("timestampAsOf", at.toString()));
  }

  private Table load(Identifier ident, Map<String, String> asOf) {
    String location = location(ident);
    if (!exists(location)) {
      throw AnalysisErrors.of(location + ": no Riffle dataset there");
    }
    Map<String, String> options = new HashMap<>(asOf);
    options.put("path", location);
    DatasetSnapshot snapshot = DatasetSnapshot.load(RiffleOptions.parse(options));
    Map<String, String> shown = new LinkedHashMap<>();
    shown.put(TableCatalog.PROP_PROVIDER, "riffle");
    shown.put(TableCatalog.PROP_LOCATION, location);
    shown.put("riffle.version", Long.toString(snapshot.manifest().version()));
    // Only the latest version takes appends: one read at an older one writes nothing.
    return new RiffleTable(snapshot.sparkSchema(), options, snapshot, shown, asOf.isEmpty());
  }

  /**
   * The canonical location an identifier names: its one part, backquoted ({@code
   * riffle.`/data/atlas`}).
   */
  private String location(Identifier ident) {
    if (ident.namespace().length > 0) {
      throw AnalysisErrors.of(
          "the "
              + name
              + " catalog names a Riffle dataset by its location, backquoted as one part: "
              + name
              + ".`/data/atlas` or "
              + name
              + ".`s3a://bucket/atlas`, not "
              + name
              + "."
              + String.join(".", ident.namespace())
              + "."
              + ident.name());
    }
    try {
      return Storages.canonical(ident.name());
    } catch (IllegalArgumentException e) {
      throw AnalysisErrors.of(e.getMessage(), e);
    }
  }

  /**
   * Whether a dataset is at the location; a location that holds something else is refused, naming
   * what is there, since neither reading nor creating a dataset there can work.
   */
  private static boolean exists(String location) {
    try (Storage storage = Storages.open(location)) {
      if (!Dataset.versions(storage).isEmpty()) {
        return true;
      }
      String foreign = Storages.foreignContent(storage);
      if (foreign != null) {
        throw AnalysisErrors.of(location + " is not a Riffle dataset: the location " + foreign);
      }
      return false;
    } catch (IOException e) {
      throw new UncheckedIOException(e.getMessage(), e);
    }
  }

  /**
   * {@code CREATE TABLE ... AS SELECT} and {@code writeTo(...).create()}: the table that the
   * query's write creates the dataset through, as version 1. The write publishes it atomically, so
   * there is nothing left to commit or undo here.
   */
  @Override
  public StagedTable stageCreate(Identifier ident, TableInfo info)
      throws TableAlreadyExistsException {
    String location = location(ident);
    if (info.partitions().length > 0) {
      throw AnalysisErrors.of(
          location + ": riffle datasets are not partitioned by column; drop PARTITIONED BY");
    }
    if (exists(location)) {
      throw new TableAlreadyExistsException(ident);
    }
    Map<String, String> options = writeOptions(location, info.properties());
    options.put(RiffleOptions.COMMIT, DatasetCommit.Mode.CREATE.name());
    RiffleOptions.parseWrite(options); // an unknown option fails here, naming it
    StructType schema = CatalogV2Util.v2ColumnsToStructType(info.columns());
    SparkTypes.toArrow(schema); // a column with no Riffle type fails here, naming it
    Map<String, String> shown =
        Map.of(TableCatalog.PROP_PROVIDER, "riffle", TableCatalog.PROP_LOCATION, location);
    return new Staged(new RiffleTable(schema, options, null, shown, false));
  }

  /**
   * The write options of a new table: {@code OPTIONS (...)} (which Spark prefixes with {@code
   * option.}) and {@code TBLPROPERTIES}, checked as {@code df.write} options are. {@code USING}
   * another format, or a {@code LOCATION} other than the name, is refused.
   */
  private Map<String, String> writeOptions(String location, Map<String, String> properties) {
    Map<String, String> options = new HashMap<>();
    for (Map.Entry<String, String> e : properties.entrySet()) {
      String key = e.getKey();
      if (key.equals(TableCatalog.PROP_PROVIDER)) {
        String p = e.getValue().toLowerCase(Locale.ROOT);
        if (!p.equals("riffle")
            && !p.equals(RiffleDataSource.class.getName().toLowerCase(Locale.ROOT))) {
          throw AnalysisErrors.of(
              "the "
                  + name
                  + " catalog holds Riffle datasets only, not USING "
                  + e.getValue()
                  + " (DataFrameWriter.saveAsTable: write with .format(\"riffle\"))");
        }
      } else if (key.equals(TableCatalog.PROP_LOCATION)) {
        if (!Storages.canonical(e.getValue()).equals(location)) {
          throw AnalysisErrors.of(
              "a table of the "
                  + name
                  + " catalog is at the location it is named by ("
                  + location
                  + "), not at LOCATION "
                  + e.getValue());
        }
      } else if (key.startsWith(TableCatalog.OPTION_PREFIX)) {
        options.put(key.substring(TableCatalog.OPTION_PREFIX.length()), e.getValue());
      } else if (!Set.of(TableCatalog.PROP_OWNER, TableCatalog.PROP_IS_MANAGED_LOCATION)
          .contains(key)) {
        options.put(key, e.getValue());
      }
    }
    options.put("path", location);
    return options;
  }

  /** Plain {@code CREATE TABLE} (no rows): a Riffle dataset begins with its first version. */
  @Override
  public Table createTable(Identifier ident, TableInfo info) {
    String location = location(ident);
    throw AnalysisErrors.of(
        location
            + ": a Riffle dataset begins with its first rows; create it with CREATE TABLE "
            + name
            + ".`"
            + ident.name()
            + "` AS SELECT ..., or df.write.format(\"riffle\").save(path)");
  }

  @Override
  public StagedTable stageReplace(Identifier ident, TableInfo info) {
    throw replace(ident);
  }

  @Override
  public StagedTable stageCreateOrReplace(Identifier ident, TableInfo info) {
    throw replace(ident);
  }

  private RuntimeException replace(Identifier ident) {
    throw AnalysisErrors.of(
        location(ident)
            + ": REPLACE TABLE is not supported; a new version with other rows or columns is"
            + " written by df.write.format(\"riffle\").mode(\"overwrite\").save(path), and the"
            + " old versions stay readable");
  }

  /**
   * Refused: a dataset's columns are those its versions were written with, so a changed schema
   * would only make later reads fail.
   */
  @Override
  public Table alterTable(Identifier ident, TableChange... changes) {
    List<String> what = new java.util.ArrayList<>();
    for (TableChange c : changes) {
      what.add(describe(c));
    }
    throw AnalysisErrors.of(
        location(ident)
            + ": ALTER TABLE ("
            + String.join(", ", new java.util.LinkedHashSet<>(what))
            + ") is not supported: a Riffle dataset's columns are those its versions were written"
            + " with; write a new version with the new columns instead:"
            + " df.write.format(\"riffle\").mode(\"overwrite\").save(path)");
  }

  private static String describe(TableChange c) {
    if (c instanceof TableChange.AddColumn) {
      return "ADD COLUMNS";
    } else if (c instanceof TableChange.DeleteColumn) {
      return "DROP COLUMNS";
    } else if (c instanceof TableChange.RenameColumn) {
      return "RENAME COLUMN";
    } else if (c instanceof TableChange.SetProperty || c instanceof TableChange.RemoveProperty) {
      return "table properties";
    }
    return c.getClass().getSimpleName();
  }

  /** Refused: the catalog does not delete datasets (their files are the only copy). */
  @Override
  public boolean dropTable(Identifier ident) {
    throw AnalysisErrors.of(
        location(ident)
            + ": the "
            + name
            + " catalog does not delete datasets; remove the location's files to delete it");
  }

  @Override
  public void renameTable(Identifier oldIdent, Identifier newIdent) {
    throw AnalysisErrors.of(
        location(oldIdent)
            + ": a table of the "
            + name
            + " catalog is named by its location; move the dataset's files to rename it");
  }

  /** The table a CTAS writes to; the write itself publishes the version. */
  /** The one namespace of procedures: {@code CALL riffle.system.random_split(…)}. */
  private static final String SYSTEM = "system";

  @Override
  public UnboundProcedure loadProcedure(Identifier ident) {
    if (ident.namespace().length == 1
        && ident.namespace()[0].equals(SYSTEM)
        && ident.name().equals(RandomSplitProcedure.NAME)) {
      return new RandomSplitProcedure();
    }
    throw AnalysisErrors.of(
        "the "
            + name
            + " catalog has one procedure, "
            + name
            + "."
            + SYSTEM
            + "."
            + RandomSplitProcedure.NAME
            + ", not "
            + name
            + "."
            + String.join(".", ident.namespace())
            + (ident.namespace().length > 0 ? "." : "")
            + ident.name());
  }

  @Override
  public Identifier[] listProcedures(String[] namespace) {
    return namespace.length == 1 && namespace[0].equals(SYSTEM)
        ? new Identifier[] {Identifier.of(namespace, RandomSplitProcedure.NAME)}
        : new Identifier[0];
  }

  private static final class Staged implements StagedTable, SupportsWrite {
    private final RiffleTable table;

    Staged(RiffleTable table) {
      this.table = table;
    }

    @Override
    public String name() {
      return table.name();
    }

    @Override
    @SuppressWarnings("deprecation")
    public StructType schema() {
      return table.schema();
    }

    @Override
    public Map<String, String> properties() {
      return table.properties();
    }

    @Override
    public Set<TableCapability> capabilities() {
      return table.capabilities();
    }

    @Override
    public WriteBuilder newWriteBuilder(LogicalWriteInfo info) {
      return table.newWriteBuilder(info);
    }

    @Override
    public void commitStagedChanges() {
      // The write's commit published the version.
    }

    @Override
    public void abortStagedChanges() {
      // A failed write deleted its files and published nothing.
    }
  }
}

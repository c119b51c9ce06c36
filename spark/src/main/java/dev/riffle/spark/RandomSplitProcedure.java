package dev.riffle.spark;

import dev.riffle.dataset.storage.Storage;
import dev.riffle.dataset.write.DatasetVersions;
import java.io.IOException;
import java.util.Collections;
import java.util.Iterator;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.catalog.procedures.BoundProcedure;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.connector.catalog.procedures.UnboundProcedure;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * {@code CALL riffle.system.random_split(location => '…', name => 'train', fraction => 0.8, seed =>
 * 7, rest => 'test')}: the CLI's {@code riffle split} from Spark SQL. It publishes a new version
 * whose split {@code name} holds each live row with probability {@code fraction}, decided by a hash
 * of (seed, row), so the same seed gives the same rows as the CLI on any machine; with {@code
 * rest}, the other live rows become that split.
 */
final class RandomSplitProcedure implements UnboundProcedure, BoundProcedure {
  static final String NAME = "random_split";

  private static final ProcedureParameter[] PARAMETERS = {
    ProcedureParameter.in("location", DataTypes.StringType).build(),
    ProcedureParameter.in("name", DataTypes.StringType).build(),
    ProcedureParameter.in("fraction", DataTypes.DoubleType).build(),
    ProcedureParameter.in("seed", DataTypes.LongType).defaultValue("0").build(),
    ProcedureParameter.in("rest", DataTypes.StringType).defaultValue("NULL").build()
  };

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String description() {
    return "Publishes a new version of the dataset at 'location' with a random split 'name' of"
        + " about 'fraction' of its live rows (hash of seed and row) and, with 'rest', the others.";
  }

  @Override
  public BoundProcedure bind(StructType inputType) {
    return this;
  }

  @Override
  public ProcedureParameter[] parameters() {
    return PARAMETERS.clone();
  }

  @Override
  public boolean isDeterministic() {
    // It publishes a version: running it twice is two versions.
    return false;
  }

  @Override
  public Iterator<Scan> call(InternalRow args) {
    for (int i = 0; i < 3; i++) {
      if (args.isNullAt(i)) {
        throw AnalysisErrors.of(NAME + ": '" + PARAMETERS[i].name() + "' must not be NULL");
      }
    }
    String location;
    try {
      location = Storages.canonical(args.getUTF8String(0).toString());
    } catch (IllegalArgumentException e) {
      throw AnalysisErrors.of(NAME + ": " + e.getMessage(), e);
    }
    String name = args.getUTF8String(1).toString();
    double fraction = args.getDouble(2);
    long seed = args.isNullAt(3) ? 0 : args.getLong(3);
    String rest = args.isNullAt(4) ? null : args.getUTF8String(4).toString();
    try (Storage storage = Storages.open(location)) {
      DatasetVersions.randomSplit(storage, name, fraction, seed, rest);
    } catch (IllegalArgumentException e) {
      throw AnalysisErrors.of(location + ": " + e.getMessage(), e);
    } catch (IOException e) {
      throw AnalysisErrors.of(location + ": " + e.getMessage(), e);
    }
    return Collections.emptyIterator();
  }
}

package dev.riffle.spark;

import dev.riffle.dataset.storage.Storage;
import java.io.Serializable;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.util.SerializableConfiguration;

/**
 * How tasks open the dataset: its canonical URI and, for a location on a Hadoop file system, the
 * driver's Hadoop configuration as a broadcast (a {@link Configuration} is not serializable, and a
 * broadcast reaches each executor once instead of with every task, as in Spark's own file sources).
 *
 * @param location the dataset's canonical URI
 * @param hadoopConf the configuration to open it with, or null for a local location
 */
record TaskStorage(String location, Broadcast<SerializableConfiguration> hadoopConf)
    implements Serializable {

  /** Made on the driver, from the active session; {@code conf} is null for a local location. */
  static TaskStorage of(String location, Configuration conf) {
    if (conf == null) {
      return new TaskStorage(location, null);
    }
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(SparkSession.active().sparkContext());
    return new TaskStorage(location, jsc.broadcast(new SerializableConfiguration(conf)));
  }

  /** Opens the dataset's storage; the caller closes it. */
  Storage open() {
    return Storages.open(location, hadoopConf == null ? null : hadoopConf.value().value());
  }
}

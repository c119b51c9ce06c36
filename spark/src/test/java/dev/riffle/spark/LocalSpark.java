package dev.riffle.spark;

import org.apache.spark.SparkExecutorInfo;
import org.apache.spark.SparkStatusTracker;
import org.apache.spark.sql.SparkSession;

/**
 * The one local[2] session all tests of the module share (starting Spark costs seconds), stopped
 * when the test JVM exits.
 */
final class LocalSpark {
  private static SparkSession session;

  private LocalSpark() {}

  static synchronized SparkSession session() {
    if (session == null) {
      session =
          SparkSession.builder()
              .master("local[2]")
              .appName("riffle-spark-tests")
              .config("spark.ui.enabled", "false")
              .config("spark.driver.host", "127.0.0.1")
              .config("spark.driver.bindAddress", "127.0.0.1")
              .config("spark.sql.shuffle.partitions", "4")
              .config("spark.sql.session.timeZone", "UTC")
              // Parquet timestamps as INT64 micros, which the single-machine converter reads as
              // timestamps (INT96, Spark's default, has no Arrow type).
              .config("spark.sql.parquet.outputTimestampType", "TIMESTAMP_MICROS")
              .getOrCreate();
      SparkSession s = session;
      Runtime.getRuntime().addShutdownHook(new Thread(s::stop));
    }
    return session;
  }

  /**
   * Waits (up to 30 s) until no stage is active and no task runs on any executor: tasks of a failed
   * job are killed, and a killed task still runs its abort, or its commit, after its stage has
   * ended. Returns whether Spark went idle.
   */
  static boolean awaitIdle(SparkSession spark) throws InterruptedException {
    for (int i = 0; i < 300; i++) {
      SparkStatusTracker t = spark.sparkContext().statusTracker();
      boolean running = t.getActiveStageIds().length > 0;
      for (SparkExecutorInfo e : t.getExecutorInfos()) {
        running |= e.numRunningTasks() > 0;
      }
      if (!running) {
        return true;
      }
      Thread.sleep(100);
    }
    return false;
  }
}

/**
 * Hadoop {@code FileSystem} (S3A, HDFS, file) access for datasets: {@link
 * dev.riffle.hadoop.HadoopStorage}, a {@link dev.riffle.dataset.storage.Storage} for every URI
 * scheme Hadoop knows; lazy ranged reads through a local chunk cache in {@code lazy}. Staging
 * snapshots into a local cache is the stage module's.
 */
package dev.riffle.hadoop;

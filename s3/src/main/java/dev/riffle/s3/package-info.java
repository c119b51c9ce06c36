/**
 * Hadoop {@code FileSystem} (S3A, HDFS, file) access for datasets: {@link
 * dev.riffle.s3.HadoopStorage}, a {@link dev.riffle.dataset.storage.Storage} for every URI scheme
 * Hadoop knows. Staging snapshots into a local cache: {@link dev.riffle.s3.stage}.
 */
package dev.riffle.s3;

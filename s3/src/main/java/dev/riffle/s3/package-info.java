/**
 * Hadoop {@code FileSystem} (S3A, HDFS, file) access for datasets: {@link
 * dev.riffle.s3.HadoopStorage}, a {@link dev.riffle.format.io.Storage} for every URI scheme Hadoop
 * knows. Later: staging snapshots into a local cache and lazy reads.
 */
package dev.riffle.s3;

/**
 * The Spark connector: {@code spark.read.format("riffle")} reads a dataset version (or a split) as
 * Arrow-backed columnar batches, one input partition per data file or row range, with column
 * pruning; {@code df.write.format("riffle")} has each task write whole data files and the driver
 * publish one new manifest version from them, atomically, or nothing at all. Datasets live at local
 * paths or on any Hadoop file system the session is configured for ({@code s3a:}, {@code hdfs:}),
 * through {@code dev.riffle.hadoop.HadoopStorage}. The type mapping lives in {@link
 * dev.riffle.spark.SparkTypes}.
 */
package dev.riffle.spark;

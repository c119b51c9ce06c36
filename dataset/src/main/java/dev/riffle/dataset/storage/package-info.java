/**
 * Where a dataset lives: the {@link dev.riffle.dataset.storage.Storage} a dataset is listed, read
 * and published through, and its local-disk implementation. Other file systems (S3A, HDFS) plug in
 * from the s3 module.
 */
package dev.riffle.dataset.storage;

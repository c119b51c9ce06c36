/**
 * Staging dataset snapshots from any {@link dev.riffle.format.io.Storage} (S3A, HDFS, a local
 * directory) into a local, content-addressed cache that many threads and processes share: {@link
 * dev.riffle.s3.stage.SnapshotStager} downloads with parallel ranged reads, verifies length and
 * SHA-256, and publishes a per-snapshot view that {@link dev.riffle.format.io.LocalStorage} opens
 * as a dataset. The on-disk layout is in {@link dev.riffle.s3.stage.CacheLayout}.
 */
package dev.riffle.s3.stage;

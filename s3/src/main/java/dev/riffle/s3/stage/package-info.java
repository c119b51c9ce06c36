/**
 * Staging dataset snapshots from any {@link dev.riffle.dataset.storage.Storage} (S3A, HDFS, a local
 * directory) into a local, content-addressed cache that many threads and processes share: {@link
 * dev.riffle.s3.stage.SnapshotStager} downloads with parallel ranged reads, verifies length and
 * SHA-256, and publishes a per-snapshot view that {@link dev.riffle.dataset.storage.LocalStorage}
 * opens as a dataset. The on-disk layout is in {@link dev.riffle.s3.stage.CacheLayout}. A {@link
 * dev.riffle.s3.stage.CacheLimit} bounds the cache: {@link dev.riffle.s3.stage.CacheEvictor} evicts
 * least recently used blobs, or those needed furthest in the future by the {@link
 * dev.riffle.s3.stage.CachePlan}s that loaders publish in the cache ({@link
 * dev.riffle.s3.stage.NextUse}), never those pinned by a {@link dev.riffle.s3.stage.CacheLease}.
 */
package dev.riffle.s3.stage;

/**
 * Staging dataset snapshots from any {@link dev.riffle.dataset.storage.Storage} (S3A, HDFS, a local
 * directory) into a local, content-addressed cache that many threads and processes share: {@link
 * dev.riffle.stage.SnapshotStager} downloads with parallel ranged reads, verifies length and
 * SHA-256, and publishes a per-snapshot view that {@link dev.riffle.dataset.storage.LocalStorage}
 * opens as a dataset. The on-disk layout is in {@link dev.riffle.stage.CacheLayout}. A {@link
 * dev.riffle.stage.CacheLimit} bounds the cache: {@link dev.riffle.stage.CacheEvictor} evicts least
 * recently used blobs, or those needed furthest in the future by the {@link
 * dev.riffle.stage.CachePlan}s that loaders publish in the cache ({@link
 * dev.riffle.stage.NextUse}), never those pinned by a {@link dev.riffle.stage.CacheLease}.
 */
package dev.riffle.stage;

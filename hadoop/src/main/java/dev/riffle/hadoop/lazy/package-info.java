/**
 * Lazy mode: datasets read straight from object storage without staging the whole snapshot. {@link
 * dev.riffle.hadoop.lazy.LazyStorage} wraps a {@link dev.riffle.hadoop.HadoopStorage} ({@code
 * s3a://} and the rest) so that {@code Dataset.open} runs take and scan against it; data files are
 * read through a local {@link dev.riffle.hadoop.lazy.ChunkCache} of aligned, checksummed chunks,
 * and misses are fetched with ranged reads (Hadoop's vectored reads when several ranges are
 * missing), coalesced across gaps sized for object stores.
 */
package dev.riffle.hadoop.lazy;

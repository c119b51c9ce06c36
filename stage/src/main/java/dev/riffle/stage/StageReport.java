package dev.riffle.stage;

import java.nio.file.Path;

/**
 * What a stage did.
 *
 * @param source the dataset URI
 * @param snapshotId the cache's name for the dataset ({@link CacheLayout#snapshotId})
 * @param version the staged version
 * @param view the complete view directory; {@code new LocalStorage(view)} opens the dataset
 * @param files data files in the version
 * @param bytes their total length
 * @param filesDownloaded blobs this stage fetched
 * @param bytesDownloaded bytes written into those blobs (each part counted once)
 * @param filesReused blobs already in the cache, or fetched meanwhile by another thread or process
 * @param retries ranged reads or opens retried after a transient error
 * @param bytesRefetched bytes of failed attempts (read again on retry)
 * @param blobsEvicted blobs this stage evicted to stay under the cache limit
 * @param bytesEvicted their size on disk (whole blocks)
 * @param filesVerified blobs hashed against the manifest by this call (reused blobs are hashed
 *     before they are linked; with {@code --verify}, every blob of the version)
 * @param filesRepaired blobs found damaged in the cache (wrong SHA-256) and fetched again
 * @param alreadyComplete the view was complete before this call, and sound: nothing was fetched
 * @param seconds wall time of the stage
 */
public record StageReport(
    String source,
    String snapshotId,
    long version,
    Path view,
    int files,
    long bytes,
    int filesDownloaded,
    long bytesDownloaded,
    int filesReused,
    long retries,
    long bytesRefetched,
    int blobsEvicted,
    long bytesEvicted,
    int filesVerified,
    int filesRepaired,
    boolean alreadyComplete,
    double seconds) {

  /** Downloaded bytes per second, in MB/s (10^6 bytes); 0 when nothing was downloaded. */
  public double megabytesPerSecond() {
    return seconds <= 0 || bytesDownloaded == 0 ? 0 : bytesDownloaded / seconds / 1e6;
  }
}

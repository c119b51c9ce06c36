package dev.riffle.stage;

/**
 * Told how a stage goes, for progress bars. Called from download threads, possibly concurrently, so
 * implementations must be thread-safe and quick.
 */
public interface StageListener {
  /** No-op listener. */
  StageListener NONE = new StageListener() {};

  /** Before any download: the snapshot's file count and bytes. */
  default void started(int files, long totalBytes) {}

  /** Bytes of the snapshot present so far (reused blobs count at once), up to the total. */
  default void progressed(long bytesDone) {}

  /**
   * Something the user should hear of while it happens: a retry ("retrying part 3 of 8 of s3a://b/k
   * (2/8): connection refused"), a damaged blob being fetched again.
   */
  default void note(String line) {}
}

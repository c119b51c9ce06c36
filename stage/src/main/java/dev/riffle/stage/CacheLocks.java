package dev.riffle.stage;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Exclusive locks on cache entries that hold across threads and processes. Java's {@link FileLock}
 * belongs to the whole JVM (a second lock on the same file from another thread throws {@code
 * OverlappingFileLockException}), so a thread first takes an in-JVM lock for the key, then the OS
 * lock on {@code locks/<key>.lock}. The OS lock is an {@code fcntl} lock that the kernel drops when
 * its process dies, so the lock of a crashed or killed stager is reclaimed by the next one without
 * any timeout; the lock file itself is left in place (its presence means nothing).
 *
 * <p>Not for NFS or Lustre, where {@code fcntl} locks may be missing or unreliable: keep the cache
 * on local disk.
 */
final class CacheLocks {
  /**
   * One lock per lock file ever taken in this JVM. Entries are never removed, which costs a few
   * dozen bytes per blob and avoids a remove-while-another-thread-waits race.
   */
  private static final ConcurrentMap<Path, ReentrantLock> IN_JVM = new ConcurrentHashMap<>();

  private CacheLocks() {}

  /** A held lock; closing it releases the OS lock, then the in-JVM one. */
  static final class Held implements AutoCloseable {
    private final ReentrantLock jvmLock;
    private final FileChannel channel;
    private final FileLock osLock;

    private Held(ReentrantLock jvmLock, FileChannel channel, FileLock osLock) {
      this.jvmLock = jvmLock;
      this.channel = channel;
      this.osLock = osLock;
    }

    @Override
    public void close() throws IOException {
      try {
        osLock.release();
        channel.close();
      } finally {
        jvmLock.unlock();
      }
    }
  }

  /**
   * Blocks until this thread holds the lock of {@code lockFile}, in this JVM and on the OS. Waiting
   * on another process polls (1 to 50 ms), which costs little next to a blob download.
   */
  static Held lock(Path lockFile) throws IOException {
    ReentrantLock jvmLock = IN_JVM.computeIfAbsent(lockFile, k -> new ReentrantLock());
    try {
      jvmLock.lockInterruptibly();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException("interrupted waiting for " + lockFile);
    }
    FileChannel ch = null;
    try {
      ch =
          FileChannel.open(
              lockFile,
              StandardOpenOption.CREATE,
              StandardOpenOption.WRITE,
              StandardOpenOption.READ);
      // Polling tryLock, not lock(): fcntl locks belong to the process, so the kernel's deadlock
      // check sees two threads of A and B waiting on each other's blobs as a cycle and fails one
      // blocking lock() with EDEADLK ("Resource deadlock avoided"), though no thread waits on a
      // lock its own thread holds. A non-blocking attempt is never refused that way.
      FileLock os;
      long sleepMillis = 1;
      while ((os = ch.tryLock()) == null) {
        try {
          Thread.sleep(sleepMillis);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new java.io.InterruptedIOException("interrupted waiting for " + lockFile);
        }
        sleepMillis = Math.min(50, sleepMillis * 2);
      }
      return new Held(jvmLock, ch, os);
    } catch (IOException | RuntimeException e) {
      if (ch != null) {
        ch.close();
      }
      jvmLock.unlock();
      throw e;
    }
  }
}

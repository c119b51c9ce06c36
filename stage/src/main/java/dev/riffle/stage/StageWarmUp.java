package dev.riffle.stage;

import dev.riffle.dataset.ManifestCodec;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Warms up, once per process and on a background thread, the code that a stage spends its time in,
 * while the stage still waits for the store's first answers.
 *
 * <p>Why: the JDK hashes SHA-256 with the CPU's SHA instructions (an intrinsic) only in code that
 * the C2 compiler compiled. A stage calls the digest once per part, too few times for C2 to compile
 * {@code DigestBase.engineUpdate} before a short-lived process (the CLI) ends, above all on a busy
 * machine whose C2 queue is full of start-up code; the parts are then hashed by the plain Java
 * SHA-256, many times slower. Many small updates get the method compiled early (C2 takes the
 * busiest methods first). The loop also runs other digests (some library of a stage loads SHA-1
 * later), a reset after a digest and an empty update: compiled code that meets a path or a digest
 * class it did not see is thrown away, and with it the intrinsic for the rest of the stage. It
 * stops once a large update runs at the intrinsic's speed, or after {@link #MAX_NANOS} (C2 off, or
 * no CPU to spare).
 *
 * <p>The manifest's JSON binding and schema decoder are built here too: their first use is slow and
 * lies on the stage's critical path.
 */
public final class StageWarmUp {
  private static final AtomicBoolean STARTED = new AtomicBoolean();

  /** Small updates between two timings of a large one. */
  private static final int ROUND = 10_000;

  private static final int PROBE_BYTES = 16 << 10;

  /**
   * Nanoseconds per byte under which an update runs at the intrinsic's speed: between the intrinsic
   * (with or without the SHA extensions) and the plain Java SHA-256 compiled by C2.
   */
  private static final int FAST_NANOS_PER_BYTE = 3;

  private static final long MAX_NANOS = 1_500_000_000L;

  private StageWarmUp() {}

  /** Starts the warm-up on a daemon thread, unless this process started it already. */
  public static void start() {
    if (!STARTED.compareAndSet(false, true)) {
      return;
    }
    Thread t = new Thread(StageWarmUp::run, "riffle-stage-warm-up");
    t.setDaemon(true);
    t.start();
  }

  private static void run() {
    try {
      warmSha256();
      ManifestCodec.warmUp();
    } catch (RuntimeException e) {
      // A warm-up that fails costs speed, never the stage (StageWarmUpTest keeps it working).
    }
  }

  /** Runs the SHA-256 part of the warm-up on the calling thread. */
  static void warmSha256() {
    long t0 = System.nanoTime();
    MessageDigest sha256 = CacheLayout.sha256();
    MessageDigest[] others = {digest("MD5"), digest("SHA-1"), digest("SHA-512")};
    byte[] small = new byte[128];
    ByteBuffer probe = ByteBuffer.allocate(PROBE_BYTES);
    do {
      for (int i = 0; i < ROUND; i++) {
        MessageDigest d = (i & 63) == 63 ? others[(i >> 6) % others.length] : sha256;
        // Mostly short updates (many calls for little work), some of whole blocks (as parts are
        // hashed), so that the compiled code has that path too.
        d.update(ByteBuffer.wrap(small, 0, (i & 63) == 0 ? small.length : 1 + (i & 7)));
        if ((i & 255) == 100) {
          d.update(small, 0, 0);
          d.digest();
        }
      }
      long start = System.nanoTime();
      sha256.update(probe.clear());
      if (System.nanoTime() - start < (long) FAST_NANOS_PER_BYTE * PROBE_BYTES) {
        return;
      }
    } while (System.nanoTime() - t0 < MAX_NANOS);
  }

  private static MessageDigest digest(String algorithm) {
    try {
      return MessageDigest.getInstance(algorithm);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has " + algorithm, e);
    }
  }
}

package dev.riffle.format.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ClosedChannelException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileSourceTest {
  @TempDir Path dir;

  private Path file(int size) throws IOException {
    byte[] b = new byte[size];
    new SplittableRandom(size).nextBytes(b);
    Path p = dir.resolve("f" + size);
    Files.write(p, b);
    return p;
  }

  private static byte[] read(RandomAccessSource s, long offset, int n, boolean direct)
      throws IOException {
    ByteBuffer b = direct ? ByteBuffer.allocateDirect(n) : ByteBuffer.allocate(n);
    s.readFully(offset, b);
    assertThat(b.hasRemaining()).isFalse();
    byte[] out = new byte[n];
    b.flip().get(out);
    return out;
  }

  @Test
  void directReadsMatchBufferedReadsAtAnyOffsetAndLength() throws IOException {
    Path p = file(3 * 4096 * 7 + 1234); // ends inside a block
    byte[] all = Files.readAllBytes(p);
    SplittableRandom r = new SplittableRandom(1);
    try (FileSource buffered = FileSource.open(p);
        FileSource direct = FileSource.open(p, true)) {
      assertThat(buffered.isDirect()).isFalse();
      if (!direct.isDirect()) {
        assertThat(direct.directFallback()).contains("O_DIRECT");
      }
      for (int k = 0; k < 300; k++) {
        int n = r.nextInt(1, 20_000);
        long at = r.nextLong(0, all.length - n + 1);
        if (k % 3 == 0) {
          at &= -4096L;
          n = Math.min(4096 * r.nextInt(1, 4), all.length - (int) at);
        }
        byte[] want = java.util.Arrays.copyOfRange(all, (int) at, (int) at + n);
        assertThat(read(buffered, at, n, false)).isEqualTo(want);
        assertThat(read(direct, at, n, k % 2 == 0)).isEqualTo(want);
        ByteBuffer aligned = IoEngine.allocateAligned(n, 4096);
        direct.readFully(at, aligned);
        byte[] got = new byte[n];
        aligned.flip().get(got);
        assertThat(got).isEqualTo(want);
      }
      assertThatThrownBy(() -> direct.readFully(all.length - 10, ByteBuffer.allocate(11)))
          .isInstanceOf(EOFException.class);
      assertThatThrownBy(() -> buffered.readFully(all.length - 10, ByteBuffer.allocate(11)))
          .isInstanceOf(EOFException.class);
    }
  }

  @Test
  void directReadsLargerThanTheBounceBufferGoPieceByPiece() throws IOException {
    int size = 2 * FileSource.BOUNCE_BYTES + 3 * 4096 + 777; // ends inside a block
    Path p = file(size);
    byte[] all = Files.readAllBytes(p);
    try (FileSource direct = FileSource.open(p, true)) {
      long[][] cases = {
        {5, size - 5}, // unaligned, all of the file but the ends
        {4096, 2L * FileSource.BOUNCE_BYTES}, // aligned start, into a heap buffer
        {size - FileSource.BOUNCE_BYTES - 1000, FileSource.BOUNCE_BYTES + 1000}, // to the end
        {FileSource.BOUNCE_BYTES - 1, 2} // across a piece boundary
      };
      for (long[] c : cases) {
        int at = (int) c[0];
        int n = (int) c[1];
        byte[] want = java.util.Arrays.copyOfRange(all, at, at + n);
        assertThat(read(direct, at, n, true)).as("at %d n %d", at, n).isEqualTo(want);
        assertThat(read(direct, at, n, false)).as("at %d n %d heap", at, n).isEqualTo(want);
      }
      assertThatThrownBy(() -> direct.readFully(size - 10, ByteBuffer.allocateDirect(11)))
          .isInstanceOf(EOFException.class);
    }
  }

  @Test
  void fallsBackWithAReasonOrReadsDirectlyOnTmpfs() throws IOException {
    Path shm = Path.of("/dev/shm");
    if (!Files.isDirectory(shm) || !"tmpfs".equals(Files.getFileStore(shm).type())) {
      return; // no tmpfs to try on this machine
    }
    Path p = Files.createTempFile(shm, "riffle-direct", ".bin");
    try {
      Files.write(p, new byte[10_000]);
      try (FileSource s = FileSource.open(p, true)) {
        // tmpfs accepts O_DIRECT since Linux 6.6; older kernels refuse it.
        if (!s.isDirect()) {
          assertThat(s.directFallback()).contains("O_DIRECT refused").contains(p.toString());
        } else {
          assertThat(s.directFallback()).isNull();
        }
        assertThat(read(s, 5, 100, true)).isEqualTo(new byte[100]);
      }
    } finally {
      Files.deleteIfExists(p);
    }
  }

  @Test
  void anInterruptFailsOnlyTheInterruptedReadAndTheSourceStaysOpen() throws Exception {
    for (boolean directIo : new boolean[] {false, true}) {
      Path p = file(1 << 20);
      byte[] all = Files.readAllBytes(p);
      try (FileSource s = FileSource.open(p, directIo)) {
        CountDownLatch reading = new CountDownLatch(1);
        AtomicReference<Throwable> seen = new AtomicReference<>();
        AtomicReference<byte[]> after = new AtomicReference<>();
        Thread t =
            new Thread(
                () -> {
                  try {
                    while (true) {
                      read(s, 4096, 65536, true);
                      reading.countDown();
                    }
                  } catch (Throwable e) {
                    seen.set(e);
                  }
                  Thread.interrupted();
                  try {
                    after.set(read(s, 7, 100, false));
                  } catch (Throwable e) {
                    seen.set(e);
                  }
                });
        t.start();
        reading.await();
        // Readers on other threads keep going while the channel is closed and reopened.
        for (int k = 0; k < 50; k++) {
          if (k == 10) {
            t.interrupt();
          }
          assertThat(read(s, 100 * k, 5000, k % 2 == 0))
              .isEqualTo(java.util.Arrays.copyOfRange(all, 100 * k, 100 * k + 5000));
        }
        t.join();
        assertThat(seen.get()).isInstanceOf(ClosedByInterruptException.class);
        assertThat(after.get()).isEqualTo(java.util.Arrays.copyOfRange(all, 7, 107));
        assertThat(read(s, 0, 4096, true)).isEqualTo(java.util.Arrays.copyOf(all, 4096));
      }
    }
  }

  @Test
  void closeIsFinal() throws IOException {
    FileSource s = FileSource.open(file(5000));
    s.close();
    assertThatThrownBy(() -> read(s, 0, 10, false)).isInstanceOf(ClosedChannelException.class);
  }
}

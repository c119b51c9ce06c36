import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * The stager's per-byte CPU floor (issue 21, item 6): thread CPU seconds per GiB of the JDK's
 * SHA-256 over 8 MiB heap parts (as OrderedHasher hashes them) and over a direct buffer, and of the
 * one copy of a part into the aligned O_DIRECT buffer (PartWriter). Run from the repository root:
 *
 * <pre>
 * java benchmarks/scripts/Sha256Cpu.java            # JDK intrinsics on (the default)
 * java -XX:+UnlockDiagnosticVMOptions -XX:-UseSHA256Intrinsics benchmarks/scripts/Sha256Cpu.java
 * openssl speed -evp sha256 -bytes 8192             # the native reference
 * </pre>
 */
public class Sha256Cpu {
  public static void main(String[] args) throws Exception {
    int part = 8 << 20;
    int parts = 128; // 1 GiB per measurement
    byte[] heap = new byte[part];
    new SplittableRandom(1).nextBytes(heap);
    ByteBuffer direct = ByteBuffer.allocateDirect(part);
    direct.put(heap).flip();
    ByteBuffer aligned = ByteBuffer.allocateDirect(part);
    for (int round = 1; round <= 3; round++) {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      long c0 = cpu();
      for (int i = 0; i < parts; i++) {
        md.update(heap);
      }
      long c1 = cpu();
      for (int i = 0; i < parts; i++) {
        md.update(direct.duplicate());
      }
      long c2 = cpu();
      for (int i = 0; i < parts; i++) {
        aligned.clear();
        aligned.put(ByteBuffer.wrap(heap));
      }
      long c3 = cpu();
      System.out.printf(
          Locale.ROOT,
          "round %d: CPU s/GiB: SHA-256 heap %.3f, SHA-256 direct %.3f, heap->direct copy %.3f%n",
          round,
          (c1 - c0) / 1e9,
          (c2 - c1) / 1e9,
          (c3 - c2) / 1e9);
    }
  }

  private static long cpu() {
    return ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
  }
}

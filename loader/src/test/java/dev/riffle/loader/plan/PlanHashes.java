package dev.riffle.loader.plan;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** SHA-256 of every global batch of a plan, for comparing runs. */
final class PlanHashes {
  private PlanHashes() {}

  static String of(EpochPlan plan) {
    try {
      MessageDigest all = MessageDigest.getInstance("SHA-256");
      ByteBuffer b = ByteBuffer.allocate(8);
      for (long t = 0; t < plan.batchCount(); t++) {
        for (long p : plan.batch(t)) {
          b.clear();
          all.update(b.putLong(p).array());
        }
      }
      return HexFormat.of().formatHex(all.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Run by {@code TwoJvmPlanTest} in a child JVM: prints the hashes of fixed plans. */
  public static void main(String[] args) {
    System.out.println(TwoJvmPlanTest.hashes());
  }
}

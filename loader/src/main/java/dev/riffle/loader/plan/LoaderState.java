package dev.riffle.loader.plan;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Where a run stands, in a few dozen bytes: enough to rebuild the exact same batch sequence from
 * batch {@code batchCursor} on, in O(1), with any world size that divides the global batch. The
 * plan is a pure function of these fields, so nothing else (no RNG state, no buffer contents) needs
 * saving.
 *
 * @param datasetVersion the dataset version the plan is over
 * @param split the view's name ("all", a split, or "subset")
 * @param seed the run's seed
 * @param epoch the epoch of the next batch
 * @param batchCursor the next global batch to deliver in that epoch
 * @param globalBatchRows G
 * @param tail drop or pad
 * @param samplerHash {@link #hash} of the sampler's description: a resume with other sampler
 *     parameters would silently give other batches, so it is refused
 */
public record LoaderState(
    long datasetVersion,
    String split,
    long seed,
    long epoch,
    long batchCursor,
    int globalBatchRows,
    Tail tail,
    String samplerHash) {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  public LoaderState {
    if (epoch < 0 || batchCursor < 0 || globalBatchRows < 1) {
      throw new IllegalArgumentException(
          "bad state: epoch " + epoch + ", cursor " + batchCursor + ", batch " + globalBatchRows);
    }
  }

  /** The start of epoch {@code epoch} of a run. */
  public static LoaderState start(
      long datasetVersion,
      String split,
      long seed,
      long epoch,
      int globalBatchRows,
      Tail tail,
      Sampler sampler) {
    return new LoaderState(
        datasetVersion, split, seed, epoch, 0, globalBatchRows, tail, hash(sampler));
  }

  /** The same state at another cursor. */
  public LoaderState at(long epoch, long batchCursor) {
    return new LoaderState(
        datasetVersion, split, seed, epoch, batchCursor, globalBatchRows, tail, samplerHash);
  }

  /** The first 16 hex digits of the SHA-256 of the sampler's description. */
  public static String hash(Sampler sampler) {
    try {
      byte[] d =
          MessageDigest.getInstance("SHA-256")
              .digest(sampler.describe().getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(d, 0, 8);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is always present", e);
    }
  }

  /**
   * Checks that this state can resume a run of {@code sampler} over version {@code version}.
   *
   * @throws IllegalArgumentException naming what differs
   */
  public void check(Sampler sampler, long version, String splitName) {
    if (!hash(sampler).equals(samplerHash)) {
      throw new IllegalArgumentException(
          "the saved state is for other sampler parameters (hash "
              + samplerHash
              + "), not "
              + sampler.describe()
              + " (hash "
              + hash(sampler)
              + ")");
    }
    if (version != datasetVersion) {
      throw new IllegalArgumentException(
          "the saved state is for dataset version " + datasetVersion + ", not " + version);
    }
    if (!split.equals(splitName)) {
      throw new IllegalArgumentException(
          "the saved state is for split '" + split + "', not '" + splitName + "'");
    }
  }

  /** As one line of JSON. */
  public String toJson() {
    try {
      return MAPPER.writeValueAsString(this);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Parses {@link #toJson()}.
   *
   * @throws IllegalArgumentException if it is not a state
   */
  public static LoaderState fromJson(String json) {
    try {
      return MAPPER.readValue(json, LoaderState.class);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("not a loader state: " + e.getOriginalMessage(), e);
    }
  }
}

package dev.riffle.convert;

import dev.riffle.dataset.Manifest;

/**
 * What a conversion did, for the summary line.
 *
 * @param rows rows written
 * @param bytesIn bytes of the inputs
 * @param bytesOut bytes written (data files of the new version, or the exported file)
 * @param nanos wall time
 * @param manifest the published manifest, or null for an export
 */
public record ConvertResult(long rows, long bytesIn, long bytesOut, long nanos, Manifest manifest) {
  public double seconds() {
    return nanos / 1e9;
  }

  public double rowsPerSecond() {
    return rows / Math.max(1e-9, seconds());
  }

  /** Input bytes per second. */
  public double bytesPerSecond() {
    return bytesIn / Math.max(1e-9, seconds());
  }

  static long dataBytes(Manifest m) {
    return m.files().stream().mapToLong(Manifest.DataFile::byteLength).sum();
  }
}

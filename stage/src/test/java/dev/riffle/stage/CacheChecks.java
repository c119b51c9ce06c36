package dev.riffle.stage;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;

/** The cache invariants every test ends with, whatever failed. */
final class CacheChecks {
  private CacheChecks() {}

  /** Every blob hashes to its name, and no temporary file is left. */
  static void assertNothingCorrupt(Path cache) throws IOException {
    for (Path blob : list(cache.resolve(CacheLayout.BLOBS_DIR))) {
      assertThat(sha256(blob)).as("blob " + blob).isEqualTo(blob.getFileName().toString());
    }
    assertThat(list(cache.resolve(CacheLayout.TMP_DIR))).as("tmp/").isEmpty();
  }

  static List<Path> list(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> s = Files.list(dir)) {
      return s.sorted().toList();
    }
  }

  static List<String> blobNames(Path cache) throws IOException {
    return list(cache.resolve(CacheLayout.BLOBS_DIR)).stream()
        .map(p -> p.getFileName().toString())
        .toList();
  }

  static String sha256(Path file) throws IOException {
    MessageDigest md = CacheLayout.sha256();
    try (InputStream in = new DigestInputStream(Files.newInputStream(file), md)) {
      in.transferTo(java.io.OutputStream.nullOutputStream());
    }
    return HexFormat.of().formatHex(md.digest());
  }
}

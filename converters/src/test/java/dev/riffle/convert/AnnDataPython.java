package dev.riffle.convert;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs Python scripts that write .h5ad files with the real anndata and h5py, so that tests read
 * what those writers really produce (chunking, filter masks, string storage) rather than what we
 * think they produce. Python is {@code $RIFFLE_PYTHON} if set, else the first of {@code python3}
 * and {@code /usr/bin/python3} that imports anndata, h5py and scipy (a pyenv {@code python3} often
 * has none of them where Debian's python3-anndata does), as datagen's H5adWriter chooses. Tests are
 * skipped, saying why, where there is none.
 */
final class AnnDataPython {
  private static final String IMPORTS = "import anndata, h5py, numpy, pandas, scipy.sparse";
  private static String python;
  private static boolean looked;

  private AnnDataPython() {}

  /** The Python to use; skips the calling test if none imports anndata. */
  static synchronized String require() {
    if (!looked) {
      looked = true;
      String chosen = System.getenv("RIFFLE_PYTHON");
      List<String> candidates =
          chosen != null && !chosen.isBlank()
              ? List.of(chosen)
              : List.of("python3", "/usr/bin/python3");
      for (String p : candidates) {
        if (imports(p)) {
          python = p;
          break;
        }
      }
    }
    assumeTrue(
        python != null,
        "no Python with anndata and h5py (Debian: apt-get install python3-anndata, or set"
            + " RIFFLE_PYTHON)");
    return python;
  }

  private static boolean imports(String p) {
    try {
      Process proc =
          new ProcessBuilder(p, "-c", IMPORTS)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.DISCARD)
              .start();
      return proc.waitFor(60, TimeUnit.SECONDS) && proc.exitValue() == 0;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /**
   * Runs {@code script} in {@code dir} with {@code args}; fails the test with Python's output if it
   * exits non-zero.
   */
  static void run(Path dir, String script, String... args)
      throws IOException, InterruptedException {
    String p = require();
    Path file = dir.resolve("write.py");
    Files.writeString(file, script);
    List<String> cmd = new ArrayList<>(List.of(p, file.toString()));
    cmd.addAll(List.of(args));
    Process proc =
        new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
    String out = new String(proc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(proc.waitFor(300, TimeUnit.SECONDS)).as("python finished").isTrue();
    assertThat(proc.exitValue()).as("python: " + out).isZero();
  }
}

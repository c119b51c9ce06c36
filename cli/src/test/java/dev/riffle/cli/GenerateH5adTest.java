package dev.riffle.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.riffle.datagen.H5adWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code riffle generate cells OUT.h5ad}: anndata writes the very rows of the Riffle file, and
 * {@code riffle convert h5ad} reads them back. Needs Python with anndata; skipped without it.
 */
class GenerateH5adTest {
  private static final String COLUMNS = "indices,values,cell_type,plate,cell_line";

  @TempDir Path dir;

  @Test
  void convertingTheH5adGivesTheRowsOfTheRiffleFile() throws Exception {
    String python = null;
    try {
      python = H5adWriter.python();
    } catch (IOException e) {
      System.out.println("skipped: " + e.getMessage());
    }
    assumeTrue(
        python != null,
        "no Python with anndata (Debian: apt-get install python3-anndata, or set RIFFLE_PYTHON):"
            + " the .h5ad round trip is skipped");
    Path h5ad = dir.resolve("cells.h5ad");
    Path riffle = dir.resolve("cells.riffle");
    String[] options = {"--rows", "300", "--seed", "7", "--genes", "500"};
    Cli.Result r = Cli.ok(concat(new String[] {"generate", "cells", h5ad.toString()}, options));
    assertThat(r.outLines())
        .containsExactly("wrote 300 rows (" + Sizes.bytes(Files.size(h5ad)) + ") to " + h5ad);
    Cli.ok(concat(new String[] {"generate", "cells", riffle.toString()}, options));
    // Only the output is left: the arrays for Python went in a temporary folder.
    try (var files = Files.list(dir)) {
      assertThat(files.map(p -> p.getFileName().toString()))
          .containsExactlyInAnyOrder("cells.h5ad", "cells.riffle");
    }

    Path converted = dir.resolve("converted");
    Cli.ok("convert", "h5ad", h5ad.toString(), converted.toString());
    List<String> expected = Cli.ok("scan", riffle.toString(), "--columns", COLUMNS).outLines();
    List<String> got = Cli.ok("scan", converted.toString(), "--columns", COLUMNS).outLines();
    assertThat(got).hasSize(300).isEqualTo(expected);
    JsonNode last =
        Json.MAPPER.readTree(
            Cli.ok("take", converted.toString(), "--rows", "299", "--columns", "obs_names").out());
    assertThat(last.get("obs_names").asText()).isEqualTo("cell299");
  }

  @Test
  void h5adIsForCountsKindsAndLocalFilesOnly() {
    Cli.Result r =
        Cli.run(
            "generate", "scalars", dir.resolve("s.h5ad").toString(), "--rows", "1", "--seed", "1");
    assertThat(r.exitCode()).isEqualTo(ErrorHandler.USAGE);
    assertThat(r.errLines())
        .containsExactly(
            "riffle: only sparse and cells can be written as .h5ad (a counts matrix with labels),"
                + " not scalars (see 'riffle generate --help')");
    r =
        Cli.run(
            "generate",
            "cells",
            dir.resolve("c.h5ad").toString(),
            "--rows",
            "1",
            "--seed",
            "1",
            "--files",
            "2");
    assertThat(r.exitCode()).isEqualTo(ErrorHandler.USAGE);
    assertThat(r.errLines()).hasSize(1);
    assertThat(r.err())
        .contains("--files, --append, --page-bytes and --weight apply to Riffle output");
    r = Cli.run("generate", "cells", "s3a://bucket/c.h5ad", "--rows", "1", "--seed", "1");
    assertThat(r.errLines())
        .containsExactly(
            "riffle: an .h5ad OUT must be a local file, not s3a://bucket/c.h5ad (see 'riffle"
                + " generate --help')");
    assertThat(dir.resolve("s.h5ad")).doesNotExist();
    assertThat(dir.resolve("c.h5ad")).doesNotExist();
  }

  private static String[] concat(String[] a, String[] b) {
    String[] out = new String[a.length + b.length];
    System.arraycopy(a, 0, out, 0, a.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}

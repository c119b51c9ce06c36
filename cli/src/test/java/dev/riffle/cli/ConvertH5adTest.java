package dev.riffle.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code riffle convert h5ad} on a file anndata wrote (the converters module's fixture). */
class ConvertH5adTest {
  static final Path CSR = Path.of("../converters/src/test/resources/h5ad/csr.h5ad");

  @TempDir Path dir;

  @Test
  void convertsThenTakes() {
    Path ds = dir.resolve("ds");
    Cli.Result r = Cli.ok("convert", "h5ad", CSR.toString(), ds.toString());
    assertThat(r.out()).startsWith("converted 40 rows from 1 file ").contains("version 1");
    assertThat(ds.resolve("tables/var.riffle")).exists();
    Cli.Result take = Cli.ok("take", ds.toString(), "--rows", "0");
    assertThat(take.out()).contains("\"obs_names\":\"cell000\"");
  }

  @Test
  void badInputIsOneLineAndPublishesNothing() throws IOException {
    Path bad = dir.resolve("bad.h5ad");
    Files.writeString(bad, "not hdf5");
    Cli.Result r = Cli.run("convert", "h5ad", bad.toString(), dir.resolve("ds").toString());
    assertThat(r.exitCode()).isEqualTo(1);
    assertThat(r.errLines()).hasSize(1);
    assertThat(r.err()).startsWith("riffle: " + bad + ": not a readable HDF5 file");
    assertThat(dir.resolve("ds/_versions")).doesNotExist();
  }
}

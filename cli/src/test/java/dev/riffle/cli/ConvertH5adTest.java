package dev.riffle.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.riffle.datagen.H5adWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code riffle convert h5ad} on a file anndata wrote (the converters module's fixture). */
class ConvertH5adTest {
  static final Path CSR = Path.of("../converters/src/test/resources/h5ad/csr.h5ad");
  static final Path WRITERS = Path.of("../converters/src/test/resources/h5ad-writers");

  @TempDir Path dir;

  @Test
  void convertsThenTakes() {
    Path ds = dir.resolve("ds");
    Cli.Result r = Cli.ok("convert", "h5ad", CSR.toString(), ds.toString());
    assertThat(r.out())
        .startsWith("converted 40 cells from 1 file ")
        .contains("version 1")
        .containsPattern("cells/s, [0-9.]+ (B|KiB|MiB|GiB)/s of input");
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

  @Test
  void infoAndInspectShowEachDictionaryInOrderWithItsOrderedFlag() throws Exception {
    anndata("categories.py", "30");
    Path ds = dir.resolve("ds");
    Cli.ok("convert", "h5ad", dir.resolve("cats.h5ad").toString(), ds.toString());
    JsonNode info = Json.MAPPER.readTree(Cli.ok("info", ds.toString(), "--json").out());
    JsonNode stage = field(info.get("schema"), "stage").get("dictionary");
    assertThat(stage.get("ordered").asBoolean()).isTrue();
    assertThat(texts(stage.get("values"))).containsExactly("late", "mid", "early", "never");
    JsonNode tissue = field(info.get("schema"), "tissue").get("dictionary");
    assertThat(tissue.get("ordered").asBoolean()).isFalse();
    assertThat(texts(tissue.get("values"))).containsExactly("lung", "skin", "gut");
    JsonNode inspect =
        Json.MAPPER.readTree(
            Cli.ok("inspect", ds.resolve("tables/var.riffle").toString(), "--json").out());
    JsonNode kind = field(inspect.get("schema"), "kind").get("dictionary");
    assertThat(kind.get("ordered").asBoolean()).isTrue();
    assertThat(texts(kind.get("values"))).containsExactly("b", "z", "a");
  }

  @Test
  void saysWhichDtypeXWasStoredWith() throws Exception {
    anndata("dtypes.py", "float64", "csr");
    Path in = dir.resolve("x.h5ad");
    Cli.Result kept = Cli.ok("convert", "h5ad", in.toString(), dir.resolve("a").toString());
    assertThat(kept.outLines()).contains("X stored as float64, the file's dtype");
    Cli.Result narrowed =
        Cli.ok(
            "convert", "h5ad", in.toString(), dir.resolve("b").toString(), "--x-dtype", "float32");
    assertThat(narrowed.outLines())
        .contains("X stored as float32 (--x-dtype float32; the file's is float64)");
    Cli.Result bad =
        Cli.run("convert", "h5ad", in.toString(), dir.resolve("c").toString(), "--x-dtype", "half");
    assertThat(bad.exitCode()).isEqualTo(2);
    assertThat(bad.err()).contains("--x-dtype: X dtype 'half' is none of stored, float32, float64");
  }

  /** What the dataset lacks was only in its metadata; the user saw a clean summary. */
  @Test
  void saysWhatItDidNotConvert() throws Exception {
    anndata("sweep.py", "obsm-frame");
    Cli.Result r =
        Cli.ok("convert", "h5ad", dir.resolve("x.h5ad").toString(), dir.resolve("a").toString());
    assertThat(r.outLines())
        .contains("not converted (kept in metadata anndata.skipped): obsm/df (dataframe)");
    JsonNode json =
        Json.MAPPER.readTree(
            Cli.ok(
                    "convert",
                    "h5ad",
                    dir.resolve("x.h5ad").toString(),
                    dir.resolve("b").toString(),
                    "--json")
                .out());
    assertThat(json.get("notConverted").asText()).isEqualTo("obsm/df (dataframe)");
  }

  private static JsonNode field(JsonNode schema, String name) {
    for (JsonNode f : schema) {
      if (f.get("name").asText().equals(name)) {
        return f;
      }
    }
    throw new AssertionError("no field " + name + " in " + schema);
  }

  private static List<String> texts(JsonNode a) {
    List<String> out = new ArrayList<>();
    a.forEach(x -> out.add(x.asText()));
    return out;
  }

  /** Runs one of the converters' anndata scripts in {@code dir}; skips without anndata. */
  private void anndata(String script, String... args) throws Exception {
    String python = null;
    try {
      python = H5adWriter.python();
    } catch (IOException e) {
      System.out.println("skipped: " + e.getMessage());
    }
    assumeTrue(python != null, "no Python with anndata (Debian: apt-get install python3-anndata)");
    List<String> cmd =
        new ArrayList<>(List.of(python, WRITERS.resolve(script).toAbsolutePath().toString()));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(300, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
  }
}

package dev.riffle.datagen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What H5adWriter refuses, and how; the round trip through anndata is the cli's test. */
class H5adWriterTest {
  @TempDir Path dir;

  @Test
  void noPythonWithAnndataIsOneLineSayingWhatToInstall() {
    assertThatThrownBy(() -> H5adWriter.python(List.of(dir.resolve("no-python").toString())))
        .isInstanceOf(IOException.class)
        .hasMessage(
            "writing .h5ad needs Python with anndata, numpy, pandas and scipy (Debian: apt-get"
                + " install python3-anndata; or set RIFFLE_PYTHON to such a python); tried "
                + dir.resolve("no-python"));
  }

  @Test
  void onlyACountsMatrixWithLabelsIsWritten() {
    try (BufferAllocator allocator = new RootAllocator()) {
      assertThatThrownBy(
              () ->
                  H5adWriter.write(
                      new ScalarsData(), 1, allocator, 1, 1, dir.resolve("x.h5ad"), null))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith(
              "only indices list<int32> + values list<float32> with dictionary-encoded labels"
                  + " can be written as .h5ad, not Schema<id: ");
      assertThatThrownBy(
              () ->
                  H5adWriter.write(
                      SparseData.withCodes(List.of("plate")),
                      SparseData.GENES,
                      allocator,
                      1,
                      1,
                      dir.resolve("x.h5ad"),
                      null))
          .isInstanceOf(IllegalArgumentException.class);
    }
    assertThat(dir.resolve("x.h5ad")).doesNotExist();
  }

  @Test
  void categoriesAreQuotedAsJson() {
    StringBuilder out = new StringBuilder();
    H5adWriter.quote(out, "a \"b\" \\ c\n\u0001é");
    assertThat(out).hasToString("\"a \\\"b\\\" \\\\ c\\u000a\\u0001é\"");
  }
}

package dev.riffle.hadoop.testing;

import dev.riffle.datagen.PayloadDataset;
import dev.riffle.dataset.Manifest;
import dev.riffle.dataset.storage.Storage;
import java.io.IOException;
import org.apache.arrow.vector.types.pojo.Schema;

/** Real datasets for staging tests: an id and an incompressible payload per row. */
public final class TestDatasets {
  public static final Schema SCHEMA = PayloadDataset.SCHEMA;

  public static final int ROW_BYTES = PayloadDataset.ROW_BYTES;

  private TestDatasets() {}

  /**
   * Writes (version 1) or appends (later versions) about {@code totalBytes} of rows in files of
   * about {@code fileBytes}, and returns the published manifest.
   */
  public static Manifest write(Storage storage, long totalBytes, long fileBytes, long seed)
      throws IOException {
    return PayloadDataset.write(storage, totalBytes, fileBytes, seed);
  }
}

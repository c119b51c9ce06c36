package dev.riffle.cli;

import dev.riffle.convert.ConvertOptions;
import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.Manifest;
import dev.riffle.dataset.storage.Storage;
import dev.riffle.dataset.write.DatasetOptions;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Option;

/**
 * What a new dataset says about itself in its manifest (FORMAT.md §11.2): its license, how to cite
 * it, and a description (metadata key {@value #DESCRIPTION_KEY}); and whether the conversion adds a
 * version to a dataset already there ({@code --append}). Shared by the convert subcommands, so that
 * the CLI can set what Spark and the Java API already could.
 */
final class DatasetDescription {
  static final String DESCRIPTION_KEY = "description";

  @Option(
      names = "--license",
      paramLabel = "SPDX",
      description = "The dataset's license, an SPDX identifier (e.g. CC-BY-4.0) or its text.")
  String license;

  @Option(
      names = "--description",
      paramLabel = "TEXT",
      description = "What the dataset holds, kept as manifest metadata '" + DESCRIPTION_KEY + "'.")
  String description;

  @Option(
      names = "--citation",
      paramLabel = "TITLE",
      description =
          "How to cite the dataset: its title (with --citation-author and --citation-doi).")
  String citationTitle;

  @Option(
      names = "--citation-author",
      paramLabel = "NAME",
      description = "An author to cite, in order (repeat the option).")
  List<String> citationAuthors = new ArrayList<>();

  @Option(names = "--citation-doi", paramLabel = "DOI", description = "The DOI to cite.")
  String citationDoi;

  @Option(
      names = "--append",
      description =
          "Add the input to the dataset at OUT_URI as its next version (same schema; for h5ad the"
              + " same var) instead of creating a new dataset.")
  boolean append;

  /** {@code options} with what was given applied to its dataset options. */
  ConvertOptions applyTo(ConvertOptions options) {
    if (citationTitle == null && (!citationAuthors.isEmpty() || citationDoi != null)) {
      throw new IllegalArgumentException(
          "--citation-author and --citation-doi need --citation TITLE");
    }
    DatasetOptions d = options.dataset();
    if (license != null) {
      if (license.isBlank()) {
        throw new IllegalArgumentException("--license is empty");
      }
      d = d.withLicense(license);
    }
    if (citationTitle != null) {
      d = d.withCitation(new Manifest.Citation(citationTitle, citationAuthors, citationDoi));
    }
    if (description != null) {
      Map<String, String> m = new LinkedHashMap<>(d.metadata());
      m.put(DESCRIPTION_KEY, description);
      d = d.withMetadata(m);
    }
    return options.withDataset(d).withAppend(append);
  }

  /** A conversion names no version: it writes version 1, or with --append the next one. */
  void requireNoVersion(Locations.Location loc) {
    Locations.requireNoVersion(
        loc,
        append
            ? "--append writes the dataset's next version"
            : "a conversion writes version 1 of a new dataset");
  }

  /** Without --append, a dataset already at {@code storage} is an error that says what to do. */
  void refuseExisting(Storage storage) throws IOException {
    List<Long> versions = append ? List.of() : Dataset.versions(storage);
    if (!versions.isEmpty()) {
      long latest = versions.get(versions.size() - 1);
      throw new FileAlreadyExistsException(
          storage.uri(),
          null,
          "a dataset already exists there (latest version "
              + latest
              + "); add --append to convert into it as version "
              + (latest + 1)
              + ", or choose another location");
    }
  }
}

package dev.riffle.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.riffle.datagen.AtomsData;
import dev.riffle.datagen.Batches;
import dev.riffle.datagen.CellsData;
import dev.riffle.datagen.H5adWriter;
import dev.riffle.datagen.Lance8Data;
import dev.riffle.datagen.ScalarsData;
import dev.riffle.datagen.SparseData;
import dev.riffle.datagen.SyntheticData;
import dev.riffle.datagen.VectorsData;
import dev.riffle.datagen.WeightedData;
import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.DatasetLayout;
import dev.riffle.dataset.storage.Storage;
import dev.riffle.format.io.TempFiles;
import dev.riffle.format.write.FileWriter;
import dev.riffle.format.write.WriterOptions;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.function.Function;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code riffle generate KIND OUT --rows N --seed S}: writes a synthetic dataset, the same rows for
 * the same kind, row count and seed (and for a single file the same bytes, given the same options),
 * so that tests and benchmarks can name their inputs instead of storing them. OUT is a single file
 * ({@code *.riffle}) or a dataset location, which gets a new published version (see {@link
 * GenerateDataset}); for the counts kinds it can also be an AnnData file ({@code *.h5ad}, see
 * {@link H5adWriter}). The data itself comes from {@code dev.riffle.datagen}.
 */
@Command(
    name = "generate",
    mixinStandardHelpOptions = true,
    description = {
      "Write a deterministic synthetic Riffle file, or a version of a dataset. Kinds:",
      "  scalars  id uint64 (10%% null), x float64, name utf8 (8-24 chars)",
      "  vectors  embedding fixed_size_list<float32, 768>, label int32",
      "  sparse   indices list<int32> + values list<float32> (one column group, ~1,500"
          + " non-zeros of 20,000 genes), plate and cell_line (dictionary utf8)",
      "  cells    raw single-cell counts as real atlases hold them, in sparse's layout: integer"
          + " counts (mostly 1-3, long tail; ~1,500 a row of --genes 20,000), log-normal library"
          + " sizes, heavy-tailed gene popularity, per-type expression programs; cell_type, plate"
          + " and cell_line (dictionary utf8), rows sorted by plate",
      "  atoms    positions + forces list<fixed_size_list<float32, 3>> (one group), numbers"
          + " list<int8>, energy float64",
      "  lance8   the 8 types of the Lance paper: u64, str16, list_u64, list_str, vec768,"
          + " list_vec, bin20k, list_bin (~140 KiB a row)",
      "OUT is a single file when it ends in .riffle or is an existing file (replaced). Otherwise"
          + " it is a dataset: a local directory (created if needed) or a URI such as"
          + " s3a://bucket/prefix (configured by RIFFLE_S3_ENDPOINT, RIFFLE_S3_REGION,"
          + " RIFFLE_S3_ACCESS_KEY, RIFFLE_S3_SECRET_KEY); generate publishes version 1 there, or"
          + " with --append the next version, with provenance and metadata (kind, seed, rows).",
      "OUT ending in .h5ad (sparse and cells only) is an AnnData file of the same rows: X a CSR"
          + " float32 matrix, obs the labels as categoricals. anndata writes it: it needs Python"
          + " with anndata, numpy, pandas and scipy (Debian: python3-anndata), found as $"
          + H5adWriter.PYTHON_ENV
          + ", else python3 on the PATH, else /usr/bin/python3."
    })
public final class GenerateCommand implements Callable<Integer> {

  static final Map<String, Function<BufferAllocator, SyntheticData>> KINDS = new LinkedHashMap<>();

  static {
    KINDS.put("scalars", a -> new ScalarsData());
    KINDS.put("vectors", a -> new VectorsData());
    KINDS.put("sparse", SparseData::new);
    KINDS.put("cells", a -> new CellsData(a, CellsData.DEFAULT_GENES));
    KINDS.put("atoms", a -> new AtomsData());
    KINDS.put("lance8", a -> new Lance8Data());
  }

  @Spec CommandSpec spec;

  @Parameters(
      index = "0",
      paramLabel = "KIND",
      completionCandidates = KindNames.class,
      description = "One of: ${COMPLETION-CANDIDATES}.")
  String kind;

  @Parameters(
      index = "1",
      paramLabel = "OUT",
      description =
          "A file to write (FILE.riffle, or FILE.h5ad for sparse and cells; replaced) or a"
              + " dataset (DIR/ or a URI).")
  String out;

  @Option(names = "--rows", required = true, paramLabel = "N", description = "Rows to write.")
  long rows;

  @Option(names = "--seed", required = true, paramLabel = "S", description = "Random seed.")
  long seed;

  @Option(
      names = "--columns",
      split = ",",
      paramLabel = "NAME",
      description = "lance8 only: write just these of its columns (default: all eight).")
  List<String> columns;

  @Option(
      names = "--genes",
      paramLabel = "G",
      description = "cells only: genes, the columns of the counts matrix (default 20000).")
  Integer genes;

  @Option(
      names = "--page-bytes",
      paramLabel = "B",
      description = "Target page size in bytes (default: the writer's, 1 MiB; at least 4096).")
  Integer pageBytes;

  @Option(
      names = "--files",
      paramLabel = "K",
      description =
          "Datasets only: spread the rows over about K data files (default: files of up to 512"
              + " MiB). A file can end only where a page was flushed, so files of a few pages"
              + " come out fewer or uneven.")
  Integer files;

  @Option(
      names = "--weight",
      paramLabel = "NAME",
      description =
          "Add a non-null float32 column NAME of sampling weights, log-uniform in [0.1, 10) and a"
              + " function of the row number alone (the other columns stay as without it), for"
              + " load --sampler weighted --weight NAME. Not for h5ad output.")
  String weight;

  @Option(
      names = "--json",
      description =
          "Print one JSON object instead of the line: out, kind, rows, seed, bytes, and for a"
              + " dataset files, version and totalRows.")
  boolean json;

  @Option(
      names = "--append",
      description = "Datasets only: add the rows as a new version of an existing dataset.")
  boolean append;

  @Override
  public Integer call() throws IOException {
    Function<BufferAllocator, SyntheticData> factory = KINDS.get(kind);
    if (factory == null) {
      throw new ParameterException(
          spec.commandLine(),
          "unknown kind '" + kind + "': kinds are " + String.join(", ", KINDS.keySet()));
    }
    if (columns != null) {
      if (!kind.equals("lance8")) {
        throw new ParameterException(spec.commandLine(), "--columns applies to lance8 only");
      }
      for (String c : columns) {
        if (!Lance8Data.names().contains(c)) {
          throw new ParameterException(
              spec.commandLine(),
              "lance8 has no column '" + c + "'; columns are " + Lance8Data.names());
        }
      }
      factory = a -> new Lance8Data(columns);
    }
    if (genes != null) {
      if (!kind.equals("cells")) {
        throw new ParameterException(spec.commandLine(), "--genes applies to cells only");
      }
      if (genes < CellsData.MIN_GENES || genes > CellsData.MAX_GENES) {
        throw new ParameterException(
            spec.commandLine(),
            "--genes must be "
                + CellsData.MIN_GENES
                + " to "
                + CellsData.MAX_GENES
                + ", not "
                + genes);
      }
      int g = genes;
      factory = a -> new CellsData(a, g);
    }
    if (weight != null) {
      Function<BufferAllocator, SyntheticData> unweighted = factory;
      String w = weight;
      factory =
          a -> {
            SyntheticData d = unweighted.apply(a);
            try {
              return new WeightedData(d, w);
            } catch (IllegalArgumentException e) {
              d.close();
              throw new ParameterException(spec.commandLine(), kind + ": " + e.getMessage());
            }
          };
    }
    if (rows < 0) {
      throw new ParameterException(spec.commandLine(), "--rows must not be negative");
    }
    if (pageBytes != null && pageBytes < 4096) {
      throw new ParameterException(
          spec.commandLine(), "--page-bytes must be at least 4096, not " + pageBytes);
    }
    if (files != null && files < 1) {
      throw new ParameterException(spec.commandLine(), "--files must be at least 1, not " + files);
    }
    Locations.Location loc = Locations.parse(out);
    if (loc.version() != null) {
      throw new ParameterException(
          spec.commandLine(),
          "OUT cannot name a version ('@" + loc.version() + "'): generate publishes the next one");
    }
    boolean h5ad = out.endsWith(".h5ad");
    if (h5ad) {
      checkH5ad(loc);
    }
    boolean dataset = !h5ad && isDataset(loc);
    if (!dataset && !h5ad && (files != null || append)) {
      throw new ParameterException(
          spec.commandLine(),
          "--files and --append apply to datasets; "
              + out
              + " is a single file (a dataset is a directory such as "
              + out.replaceFirst("\\.riffle$", "")
              + "/ or a URI)");
    }
    Progress progress = Progress.count(spec.commandLine().getErr(), "generate", rows, "row");
    try (BufferAllocator allocator = new RootAllocator();
        SyntheticData data = factory.apply(allocator)) {
      WriterOptions options = data.options(WriterOptions.defaults());
      if (pageBytes != null) {
        options = options.withPageBytes(pageBytes);
      }
      if (h5ad) {
        long bytes =
            H5adWriter.write(
                data, genes(data), allocator, rows, seed, loc.path(), progress::update);
        progress.done();
        report(bytes);
      } else if (dataset) {
        writeDataset(loc, data, options, allocator, progress);
      } else {
        long bytes = writeFile(loc.path(), data, options, allocator, progress);
        report(bytes);
      }
    }
    spec.commandLine().getOut().flush();
    return 0;
  }

  /** The line (or JSON object) of a single file written. */
  private void report(long bytes) {
    if (json) {
      spec.commandLine().getOut().println(Json.line(summary(out, bytes)));
    } else {
      spec.commandLine()
          .getOut()
          .println("wrote " + Sizes.count(rows, "row") + " (" + Sizes.bytes(bytes) + ") to " + out);
    }
  }

  private ObjectNode summary(String where, long bytes) {
    ObjectNode o = Json.MAPPER.createObjectNode();
    o.put("out", where);
    o.put("kind", kind);
    o.put("rows", rows);
    o.put("seed", seed);
    o.put("bytes", bytes);
    return o;
  }

  /** The kinds that are a counts matrix with labels, which an .h5ad file can hold. */
  static final List<String> H5AD_KINDS = List.of("sparse", "cells");

  private void checkH5ad(Locations.Location loc) {
    if (!H5AD_KINDS.contains(kind)) {
      throw new ParameterException(
          spec.commandLine(),
          "only "
              + String.join(" and ", H5AD_KINDS)
              + " can be written as .h5ad (a counts matrix with labels), not "
              + kind);
    }
    if (loc.path() == null) {
      throw new ParameterException(
          spec.commandLine(), "an .h5ad OUT must be a local file, not " + out);
    }
    if (files != null || append || pageBytes != null || weight != null) {
      throw new ParameterException(
          spec.commandLine(),
          "--files, --append, --page-bytes and --weight apply to Riffle output, not to .h5ad");
    }
  }

  /** The width of the counts matrix of a kind in {@link #H5AD_KINDS}. */
  private static int genes(SyntheticData data) {
    return data instanceof CellsData ? ((CellsData) data).genes() : SparseData.GENES;
  }

  /**
   * Whether OUT is a dataset: any URI of another file system than {@code file:}, or a local path
   * that ends with '/', is a directory, or is neither an existing file nor named {@code *.riffle}.
   */
  static boolean isDataset(Locations.Location loc) {
    if (loc.path() == null) {
      return true;
    }
    if (loc.uri().endsWith("/") || Files.isDirectory(loc.path())) {
      return true;
    }
    return !Files.isRegularFile(loc.path()) && !loc.uri().endsWith(".riffle");
  }

  private long writeFile(
      Path file,
      SyntheticData data,
      WriterOptions options,
      BufferAllocator allocator,
      Progress progress)
      throws IOException {
    // FileWriter writes a temporary file next to OUT; check the directory first so that the
    // error names it rather than the temporary file.
    Path dir = file.toAbsolutePath().getParent();
    if (dir == null || !Files.isDirectory(dir)) {
      throw new NoSuchFileException(String.valueOf(dir), null, "directory of " + out);
    }
    GcCommand.removeAbandonedTemps(dir, spec.commandLine().getErr());
    // A temporary file named for this process (TempFiles), so that if this process is killed the
    // next writer here or `riffle gc DIR` can tell it is abandoned; published by an atomic rename.
    Path temp = TempFiles.newPath(file);
    boolean done = false;
    try {
      long bytes;
      try (FileChannel ch =
              FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
          OutputStream stream = new BufferedOutputStream(Channels.newOutputStream(ch), 1 << 20);
          FileWriter writer =
              FileWriter.create(stream, data.schema(), data.dictionaries(), options)) {
        Batches.generate(
            data,
            allocator,
            rows,
            seed,
            data.batchRows(),
            batch -> {
              writer.write(batch);
              return true;
            },
            progress::update);
        bytes = writer.finish();
        stream.flush();
      }
      TempFiles.publish(temp, file);
      done = true;
      progress.done();
      return bytes;
    } finally {
      if (!done) {
        TempFiles.discard(temp);
      }
    }
  }

  private void writeDataset(
      Locations.Location loc,
      SyntheticData data,
      WriterOptions options,
      BufferAllocator allocator,
      Progress progress)
      throws IOException {
    Map<String, String> metadata = new LinkedHashMap<>();
    metadata.put("kind", kind);
    metadata.put("seed", Long.toString(seed));
    metadata.put("rows", Long.toString(rows));
    if (columns != null) {
      metadata.put("columns", String.join(",", columns));
    }
    if (weight != null) {
      metadata.put("weight", weight);
    }
    if (data instanceof CellsData) {
      metadata.put("genes", Integer.toString(((CellsData) data).genes()));
    }
    try (Storage storage = Locations.storage(loc)) {
      List<Long> versions = Dataset.versions(storage);
      if (append && versions.isEmpty()) {
        throw new IOException(
            "no Riffle dataset at "
                + loc.uri()
                + " to append to (leave out --append to create one)");
      }
      if (!append && !versions.isEmpty()) {
        throw new IOException(
            "a dataset already exists at "
                + loc.uri()
                + " (latest version "
                + versions.get(versions.size() - 1)
                + "); use --append to add rows, or choose another location");
      }
      if (!append) {
        checkEmptyDirectory(loc);
      }
      GenerateDataset.Result r =
          GenerateDataset.write(
              storage,
              data,
              options,
              rows,
              seed,
              files,
              append,
              metadata,
              "riffle generate " + kind,
              allocator,
              progress);
      progress.done();
      if (json) {
        ObjectNode o = summary(storage.uri(), r.newBytes());
        o.put("files", r.newFiles().size());
        o.put("version", r.manifest().version());
        o.put("totalRows", r.manifest().totalRows());
        spec.commandLine().getOut().println(Json.line(o));
        return;
      }
      spec.commandLine()
          .getOut()
          .println(
              "wrote "
                  + Sizes.count(rows, "row")
                  + " in "
                  + Sizes.count(r.newFiles().size(), "file")
                  + " ("
                  + Sizes.bytes(r.newBytes())
                  + ") to "
                  + storage.uri()
                  + ": version "
                  + r.manifest().version()
                  + ", "
                  + Sizes.count(r.manifest().totalRows(), "row")
                  + " in all");
    }
  }

  /**
   * Refuses to create a dataset in a local directory that holds other things: a mistyped OUT (a
   * home directory, say) should not get data/ and _versions/ mixed into it.
   */
  private static void checkEmptyDirectory(Locations.Location loc) throws IOException {
    if (loc.path() == null || !Files.isDirectory(loc.path())) {
      return;
    }
    Set<String> ours =
        Set.of(DatasetLayout.DATA_DIR, DatasetLayout.VERSIONS_DIR, DatasetLayout.LEASES_DIR);
    try (Stream<Path> entries = Files.list(loc.path())) {
      List<String> others =
          entries
              .map(p -> p.getFileName().toString())
              .filter(n -> !ours.contains(n))
              .sorted()
              .limit(3)
              .toList();
      if (!others.isEmpty()) {
        throw new IOException(
            loc.uri()
                + " is a directory with other content ("
                + String.join(", ", others)
                + (others.size() == 3 ? ", ..." : "")
                + "), not a dataset; choose a new or empty directory");
      }
    }
  }

  /** The kind names, for picocli's help and completion. */
  static final class KindNames implements Iterable<String> {
    @Override
    public Iterator<String> iterator() {
      return new ArrayList<>(KINDS.keySet()).iterator();
    }
  }
}

package dev.riffle.convert.h5ad;

import dev.riffle.convert.ConvertOptions;
import dev.riffle.convert.ConvertResult;
import dev.riffle.convert.InputDigest;
import dev.riffle.convert.InputException;
import dev.riffle.convert.SourceFile;
import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.Manifest;
import dev.riffle.dataset.storage.LocalStorage;
import dev.riffle.dataset.storage.Storage;
import dev.riffle.dataset.write.DatasetOptions;
import dev.riffle.dataset.write.DatasetWriter;
import dev.riffle.format.write.WriterOptions;
import io.jhdf.HdfFile;
import io.jhdf.api.Group;
import io.jhdf.api.Node;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;

/**
 * Converts an AnnData file ({@code .h5ad}) into a new dataset whose rows are the cells, the rows of
 * X. Schema, in this order:
 *
 * <ul>
 *   <li>{@code obs_names}: the obs index (utf8);
 *   <li>{@code indices} (list of int32) and {@code values} (list of X's dtype, or the {@link
 *       XDtype} asked for): the row of X as the column numbers of its non-zeros, ascending, and
 *       their values, one column group. CSR, CSC (transposed out of core) and dense X all end up
 *       so; a dense X loses its zeros. The metadata says X's dtype as stored ({@code
 *       anndata.X.dtype}) and in the file ({@code anndata.X.file_dtype});
 *   <li>the obs columns: categoricals as dictionary-encoded utf8 (null where missing), nullable
 *       integers as nullable int64, nullable booleans, booleans, strings and numbers. A name
 *       already taken is prefixed with {@code obs.};
 *   <li>{@code obsm_KEY}: each obsm matrix as a fixed-size list of its columns, stored type;
 *   <li>{@code layer_KEY_indices}/{@code layer_KEY_values}: each layer, like X but in its stored
 *       value type (integer counts stay integers), one column group;
 *   <li>{@code raw_indices}/{@code raw_values}: raw/X, likewise.
 * </ul>
 *
 * <p>var (with varm as {@code varm_KEY} columns) and raw/var are side tables, one Riffle file each
 * in the dataset's {@code tables/} directory; the manifest's metadata names them ({@code
 * riffle.table.var}, {@code riffle.table.raw_var}) with their SHA-256 ({@code ...sha256}). So are
 * the sparse obsp and varp matrices (the neighbourhood graph), in coordinate form ({@code
 * riffle.table.obsp_KEY}: row, col, value; see {@link Pairwise}). uns is kept as JSON in {@code
 * anndata.uns} where representable; what is left out (dense obsp/varp, say) is listed in {@code
 * anndata.skipped}.
 *
 * <p>Memory is bounded: every batch of rows is cut at {@link ConvertOptions#batchRows()} rows and
 * about {@link ConvertOptions#batchBytes()} of matrix entries, read from the file by slices, and a
 * CSC matrix is transposed through a temporary file in buckets of that size.
 */
public final class H5adConverter {
  /** The tool name recorded in the provenance. */
  public static final String TOOL = "riffle convert h5ad";

  /** Metadata key prefix of side tables: {@code riffle.table.NAME} is the path. */
  public static final String TABLE_KEY = "riffle.table.";

  /** Metadata key of uns, as JSON. */
  public static final String UNS_KEY = "anndata.uns";

  /** Metadata key of what was not converted. */
  public static final String SKIPPED_KEY = "anndata.skipped";

  private H5adConverter() {}

  /** Metadata key of X's dtype as stored in the dataset (numpy's name: float32, int64...). */
  public static final String X_DTYPE_KEY = "anndata.X.dtype";

  /** Metadata key of X's dtype in the file. */
  public static final String X_FILE_DTYPE_KEY = "anndata.X.file_dtype";

  /** Converts with a meter nobody reads, X in its own dtype. */
  public static ConvertResult convert(
      SourceFile input, Storage out, BufferAllocator allocator, ConvertOptions options)
      throws IOException {
    return convert(input, out, allocator, options, new BufferMeter());
  }

  /** Converts with X in its own dtype. */
  public static ConvertResult convert(
      SourceFile input,
      Storage out,
      BufferAllocator allocator,
      ConvertOptions options,
      BufferMeter meter)
      throws IOException {
    return convert(input, out, allocator, options, meter, XDtype.STORED);
  }

  /**
   * Writes version 1 of a new dataset at {@code out} from an AnnData file, or with {@link
   * ConvertOptions#append} its next version (the side tables, var first, must be the dataset's).
   * Nothing is published, and no side table is left, if anything fails; a new local location is
   * removed again.
   *
   * @param meter told how much the conversion buffers
   * @param xType X's value type: by default ({@link XDtype#STORED}) the file's, losing nothing
   * @throws InputException naming the file, if it is no HDF5 file, not AnnData, truncated, or holds
   *     something that cannot be converted
   * @throws FileAlreadyExistsException if a dataset exists at {@code out} and this is no append
   */
  public static ConvertResult convert(
      SourceFile input,
      Storage out,
      BufferAllocator allocator,
      ConvertOptions options,
      BufferMeter meter,
      XDtype xType)
      throws IOException {
    if (!options.categorical().isEmpty()) {
      throw new IllegalArgumentException(
          "categorical columns are an option of Parquet and Arrow IPC input; an .h5ad file's"
              + " categoricals are its own");
    }
    List<Long> versions = Dataset.versions(out);
    if (!versions.isEmpty() && !options.append()) {
      throw new FileAlreadyExistsException(
          out.uri(),
          null,
          "a dataset already exists there; append to it (ConvertOptions.withAppend) or choose"
              + " another location");
    }
    LenientLzfFilter.install();
    boolean fresh = out instanceof LocalStorage && !Files.exists(((LocalStorage) out).root());
    boolean done = false;
    try {
      ConvertResult r = convertInto(input, out, allocator, options, meter, xType);
      done = true;
      return r;
    } finally {
      if (!done && fresh) {
        removeEmptyDirectories(((LocalStorage) out).root());
      }
    }
  }

  /**
   * A failed conversion into a new local location leaves no trace: the directories it made (the
   * root, tables/, data/) go once the writers have removed their files. Only empty directories are
   * removed, so nothing anyone else put there in the meantime is lost.
   */
  private static void removeEmptyDirectories(Path root) {
    if (!Files.isDirectory(root)) {
      return;
    }
    try (Stream<Path> all = Files.walk(root)) {
      List<Path> dirs = all.filter(Files::isDirectory).sorted(Comparator.reverseOrder()).toList();
      for (Path d : dirs) {
        try (Stream<Path> in = Files.list(d)) {
          if (in.findAny().isEmpty()) {
            Files.deleteIfExists(d);
          }
        }
      }
    } catch (IOException e) {
      // Best effort: the failure being reported matters more than an empty directory.
    }
  }

  private static ConvertResult convertInto(
      SourceFile input,
      Storage out,
      BufferAllocator allocator,
      ConvertOptions options,
      BufferMeter meter,
      XDtype xType)
      throws IOException {
    long start = System.nanoTime();
    Path copy = null;
    Path local = input.localPath();
    InputDigest sha = null;
    try {
      if (local == null) {
        // jhdf needs random access to a local file: copy a remote input once.
        copy = Files.createTempFile("riffle-h5ad-", ".h5ad");
        try (InputStream in = input.open()) {
          Files.copy(in, copy, StandardCopyOption.REPLACE_EXISTING);
        }
        local = copy;
      }
      // Hashed beside the conversion (the local copy of a remote input: the same bytes).
      sha = InputDigest.start(copy == null ? input : SourceFile.local(copy));
      HdfFile h5 = open(input.name(), local);
      try (h5) {
        return run(input, sha, h5, out, allocator, options, meter, xType, start);
      } catch (RuntimeException e) {
        throw failure(input.name(), e);
      }
    } finally {
      if (sha != null) {
        sha.close();
      }
      if (copy != null) {
        Files.deleteIfExists(copy);
      }
    }
  }

  private static HdfFile open(String name, Path path) throws InputException {
    try {
      return new HdfFile(path);
    } catch (RuntimeException e) {
      throw new InputException(name, "not a readable HDF5 file (" + Hdf.oneLine(e) + ")", e);
    }
  }

  /** A failure of jhdf inside the file, as one line naming the file. */
  static InputException failure(String name, RuntimeException e) {
    boolean lzf = false;
    for (Throwable t = e; t != null; t = t.getCause()) {
      lzf |= t instanceof io.jhdf.exceptions.HdfFilterException;
      lzf |= String.valueOf(t.getMessage()).toLowerCase(java.util.Locale.ROOT).contains("lzf");
    }
    if (lzf) {
      return new InputException(
          name,
          "an LZF-compressed dataset cannot be decoded ("
              + Hdf.oneLine(e)
              + "); re-save the file with adata.write_h5ad(path, compression='gzip')",
          e);
    }
    return new InputException(
        name, "cannot read it; truncated or corrupt? (" + Hdf.oneLine(e) + ")", e);
  }

  private static ConvertResult run(
      SourceFile input,
      InputDigest sha,
      HdfFile h5,
      Storage out,
      BufferAllocator allocator,
      ConvertOptions options,
      BufferMeter meter,
      XDtype xType,
      long start)
      throws IOException {
    String name = input.name();
    Node obsNode = Hdf.child(h5, "obs");
    if (!(obsNode instanceof Group)) {
      throw new InputException(
          name,
          obsNode == null
              ? "not an AnnData file (no obs group)"
              : "obs is not a group: files of anndata before 0.7 are not supported; re-save the"
                  + " file with a newer anndata");
    }
    Path tempDir = Path.of(System.getProperty("java.io.tmpdir"));
    List<String> sideTables = new ArrayList<>();
    try (AnnDataMapping layout =
        AnnDataMapping.read(name, h5, allocator, options, xType, tempDir, meter)) {
      Map<String, String> metadata = new LinkedHashMap<>(options.dataset().metadata());
      // Appended cells must share the dataset's genes: every side table (var, raw/var, the
      // pairwise graphs) must be the dataset's own, byte for byte (the writer is deterministic).
      Manifest base =
          options.append() ? Dataset.readManifest(out, Dataset.latestVersion(out)) : null;
      long totalRows = layout.rows + (base == null ? 0 : base.totalRows());
      String baseShape = base == null ? null : base.metadata().get("anndata.shape");
      if (base != null && (baseShape == null || !baseShape.endsWith(", " + layout.vars + "]"))) {
        throw new InputException(
            name,
            "cannot append to "
                + out.uri()
                + " version "
                + base.version()
                + ": this file has "
                + layout.vars
                + " genes (var), the dataset's shape is "
                + (baseShape == null ? "not an AnnData one" : baseShape));
      }
      metadata.put("anndata.shape", "[" + totalRows + ", " + layout.vars + "]");
      metadata.put("anndata.X", layout.xEncoding);
      if (layout.xDtype != null) {
        metadata.put(X_DTYPE_KEY, layout.xDtype);
        metadata.put(X_FILE_DTYPE_KEY, layout.xFileDtype);
      }
      for (Map.Entry<String, List<Column>> t : layout.tables.entrySet()) {
        String path =
            "tables/"
                + t.getKey()
                + (base == null ? "" : ".append-" + Long.toHexString(System.nanoTime()))
                + ".riffle";
        sideTables.add(path);
        long rows = layout.tableRows.get(t.getKey());
        String tableSha =
            SideTable.write(out, path, t.getValue(), rows, options.batchRows(), allocator);
        if (base != null) {
          String have = base.metadata().get(TABLE_KEY + t.getKey() + ".sha256");
          if (!tableSha.equals(have)) {
            throw new InputException(
                name,
                "cannot append to "
                    + out.uri()
                    + " version "
                    + base.version()
                    + ": its "
                    + t.getKey()
                    + (have == null
                        ? " is not in the dataset"
                        : " differs from the dataset's ("
                            + base.metadata().get(TABLE_KEY + t.getKey())
                            + ")")
                    + "; appended cells must have the dataset's genes in its order, and no"
                    + " pairwise (obsp) graph");
          }
          continue;
        }
        metadata.put(TABLE_KEY + t.getKey(), path);
        metadata.put(TABLE_KEY + t.getKey() + ".sha256", tableSha);
      }
      if (base != null) {
        for (String key : base.metadata().keySet()) {
          String table = key.startsWith(TABLE_KEY) ? key.substring(TABLE_KEY.length()) : "";
          if (!table.isEmpty() && !table.endsWith(".sha256") && !layout.tables.containsKey(table)) {
            throw new InputException(
                name,
                "cannot append to "
                    + out.uri()
                    + " version "
                    + base.version()
                    + ": the dataset has a "
                    + table
                    + " table ("
                    + base.metadata().get(key)
                    + ") that this file lacks");
          }
        }
      }
      if (layout.uns != null) {
        metadata.put(UNS_KEY, layout.uns);
      }
      if (!layout.skipped.isEmpty()) {
        metadata.put(SKIPPED_KEY, String.join("; ", layout.skipped));
      }
      WriterOptions file =
          options.dataset().file().withColumnGroups(withGroups(options, layout.groups()));
      DatasetOptions dataset =
          options
              .dataset()
              .withFileOptions(file)
              .withMetadata(metadata)
              .withProvenance(
                  new Manifest.Provenance(
                      TOOL, version(), List.of(new Manifest.Source(name, input.length(), null))));
      Manifest m;
      try (DatasetWriter writer =
          options.writer(name, out, layout.schema(), layout.dictionaries(), dataset)) {
        new RowWriter(layout, allocator, options, meter, input.length()).writeAll(writer);
        writer.setProvenance(
            new Manifest.Provenance(
                TOOL, version(), List.of(new Manifest.Source(name, input.length(), sha.get()))));
        m = writer.publish();
      }
      if (base == null) {
        sideTables.clear();
      }
      long bytes = m.files().stream().mapToLong(Manifest.DataFile::byteLength).sum();
      return new ConvertResult(layout.rows, input.length(), bytes, System.nanoTime() - start, m);
    } finally {
      // Not published: the side tables go too.
      for (String path : sideTables) {
        try {
          out.delete(path);
        } catch (IOException e) {
          // Nothing references it; best effort.
        }
      }
    }
  }

  private static List<List<String>> withGroups(ConvertOptions options, List<List<String>> more) {
    List<List<String>> all = new ArrayList<>(options.dataset().file().columnGroups());
    all.addAll(more);
    return all;
  }

  /** This library's version, for the provenance. */
  static String version() {
    String v = H5adConverter.class.getPackage().getImplementationVersion();
    return v == null ? "0.1.0-SNAPSHOT" : v;
  }
}

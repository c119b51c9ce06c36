package dev.riffle.cli;

import dev.riffle.writer.FileWriter;
import dev.riffle.writer.WriterOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.function.Function;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code riffle generate KIND OUT --rows N --seed S}: writes a synthetic dataset, the same bytes
 * for the same kind, row count, seed and options, so that tests and benchmarks can name their
 * inputs instead of storing them.
 */
@Command(
    name = "generate",
    mixinStandardHelpOptions = true,
    description = {
      "Write a deterministic synthetic Riffle file. Kinds:",
      "  scalars  id uint64 (10% null), x float64, name utf8 (8-24 chars)",
      "  vectors  embedding fixed_size_list<float32, 768>, label int32",
      "  sparse   indices list<int32> + values list<float32> (one column group, ~1,500"
          + " non-zeros of 20,000 genes), plate and cell_line (dictionary utf8)",
      "  atoms    positions + forces list<fixed_size_list<float32, 3>> (one group), numbers"
          + " list<int8>, energy float64",
      "  lance8   the 8 types of the Lance paper: u64, str16, list_u64, list_str, vec768,"
          + " list_vec, bin20k, list_bin (~140 KiB a row)"
    })
public final class GenerateCommand implements Callable<Integer> {
  /** Row counts from which a progress indicator is worth showing. */
  static final long PROGRESS_ROWS = 100_000;

  static final Map<String, Function<BufferAllocator, SyntheticData>> KINDS = new LinkedHashMap<>();

  static {
    KINDS.put("scalars", a -> new ScalarsData());
    KINDS.put("vectors", a -> new VectorsData());
    KINDS.put("sparse", SparseData::new);
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

  @Parameters(index = "1", paramLabel = "OUT", description = "The file to write (replaced).")
  Path out;

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
      names = "--page-bytes",
      paramLabel = "B",
      description = "Target page size in bytes (default: the writer's, 1 MiB; at least 4096).")
  Integer pageBytes;

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
    if (rows < 0) {
      throw new ParameterException(spec.commandLine(), "--rows must not be negative");
    }
    if (pageBytes != null && pageBytes < 4096) {
      throw new ParameterException(
          spec.commandLine(), "--page-bytes must be at least 4096, not " + pageBytes);
    }
    // FileWriter writes a temporary file next to OUT; check the directory first so that the
    // error names it rather than the temporary file.
    Path dir = out.toAbsolutePath().getParent();
    if (dir == null || !Files.isDirectory(dir)) {
      throw new NoSuchFileException(String.valueOf(dir), null, "directory of " + out);
    }
    if (Files.isDirectory(out)) {
      throw new IOException(out + " is a directory");
    }
    long bytes;
    try (BufferAllocator allocator = new RootAllocator();
        SyntheticData data = factory.apply(allocator)) {
      WriterOptions options = data.options();
      if (pageBytes != null) {
        options = options.withPageBytes(pageBytes);
      }
      bytes = write(data, options, allocator);
    }
    spec.commandLine().getOut().println("wrote " + rows + " rows, " + bytes + " bytes to " + out);
    spec.commandLine().getOut().flush();
    return 0;
  }

  private long write(SyntheticData data, WriterOptions options, BufferAllocator allocator)
      throws IOException {
    SplittableRandom rng = new SplittableRandom(seed);
    Progress progress = Progress.forTerminal(spec.commandLine().getErr(), rows, PROGRESS_ROWS);
    try (FileWriter writer = FileWriter.create(out, data.schema(), data.dictionaries(), options)) {
      for (long first = 0; first < rows; first += data.batchRows()) {
        int count = (int) Math.min(data.batchRows(), rows - first);
        try (VectorSchemaRoot batch = VectorSchemaRoot.create(data.schema(), allocator)) {
          for (FieldVector v : batch.getFieldVectors()) {
            v.setInitialCapacity(count);
          }
          batch.allocateNew();
          data.fill(batch, first, count, rows, rng);
          batch.setRowCount(count);
          writer.write(batch);
        }
        progress.update(first + count);
      }
      long bytes = writer.finish();
      progress.done();
      return bytes;
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

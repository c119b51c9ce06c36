package dev.riffle.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.riffle.convert.ConvertResult;
import dev.riffle.convert.Exporter;
import dev.riffle.convert.OutputTarget;
import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.storage.Storage;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code riffle export parquet|arrow URI[@v] OUT}: writes a version of a dataset (its live rows) as
 * one Parquet or Arrow IPC file, which appears under its name only once complete.
 */
@Command(
    name = "export",
    mixinStandardHelpOptions = true,
    description = {"Export a dataset version to a Parquet or Arrow IPC file."},
    subcommands = {ExportCommand.Parquet.class, ExportCommand.Arrow.class})
public final class ExportCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    throw new ParameterException(spec.commandLine(), "missing format: one of parquet, arrow");
  }

  /** What both formats share: the dataset, the output, the summary. */
  abstract static class Base implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Parameters(index = "0", paramLabel = "URI[@VERSION]", description = "A dataset.")
    String location;

    @Parameters(
        index = "1",
        paramLabel = "OUT",
        description = "The file to write (must not exist).")
    String target;

    @Mixin JsonOutput output = new JsonOutput();

    abstract ConvertResult export(Dataset d, OutputTarget out, BufferAllocator a, Progress p)
        throws IOException;

    @Override
    public Integer call() throws IOException {
      Locations.Location loc = Locations.parse(location);
      // The next export into a directory removes what killed ones left there.
      Locations.Location dest = Locations.parse(target);
      if (dest.path() != null && dest.path().toAbsolutePath().getParent() != null) {
        GcCommand.removeAbandonedTemps(
            dest.path().toAbsolutePath().getParent(), spec.commandLine().getErr());
      }
      ConvertResult r;
      try (BufferAllocator allocator = new RootAllocator();
          Storage storage = Locations.openDataset(loc, "export");
          Dataset d = Dataset.open(storage, Locations.version(storage, loc), allocator)) {
        // No threshold: the line appears only after a second, so quick exports stay quiet.
        Progress progress =
            Progress.count(spec.commandLine().getErr(), "export", d.rowCount(), "row");
        r = export(d, OutputTarget.open(target, Locations.hadoopOverrides), allocator, progress);
        progress.done();
      }
      PrintWriter out = spec.commandLine().getOut();
      if (output.json) {
        ObjectNode o = Json.MAPPER.createObjectNode();
        o.put("out", target);
        o.put("rows", r.rows());
        o.put("bytesIn", r.bytesIn());
        o.put("bytesOut", r.bytesOut());
        o.put("seconds", r.seconds());
        out.println(Json.line(o));
        out.flush();
        return 0;
      }
      out.printf(
          Locale.ROOT,
          "exported %,d rows (%s) to %s (%s) in %.1f s: %,.0f rows/s%n",
          r.rows(),
          InspectCommand.humanBytes(r.bytesIn()),
          target,
          InspectCommand.humanBytes(r.bytesOut()),
          r.seconds(),
          r.rowsPerSecond());
      out.flush();
      return 0;
    }
  }

  /** {@code riffle export parquet}. */
  @Command(
      name = "parquet",
      mixinStandardHelpOptions = true,
      description = {
        "Export to Parquet. Categorical columns become their values (strings for string"
            + " categories), dictionary-encoded (Parquet keeps no category list or ordered flag)."
      })
  static final class Parquet extends Base {
    @Option(
        names = "--codec",
        paramLabel = "CODEC",
        description = "uncompressed, snappy, gzip, zstd (default) or lz4_raw.")
    String codec = "zstd";

    @Override
    ConvertResult export(Dataset d, OutputTarget out, BufferAllocator a, Progress p)
        throws IOException {
      CompressionCodecName c;
      try {
        c = CompressionCodecName.valueOf(codec.toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("unknown codec '" + codec + "'");
      }
      AtomicLong done = new AtomicLong();
      return Exporter.toParquet(d, out, c, a, n -> p.update(done.addAndGet(n)));
    }
  }

  /** {@code riffle export arrow}. */
  @Command(
      name = "arrow",
      mixinStandardHelpOptions = true,
      description = {
        "Export to Arrow IPC. Categorical columns stay dictionaries: every category, in order,"
            + " with the ordered flag."
      })
  static final class Arrow extends Base {
    @Option(
        names = "--stream",
        description = "Write the IPC stream format instead of the file format.")
    boolean stream;

    @Override
    ConvertResult export(Dataset d, OutputTarget out, BufferAllocator a, Progress p)
        throws IOException {
      AtomicLong done = new AtomicLong();
      return Exporter.toArrow(
          d,
          out,
          stream ? Exporter.ArrowFormat.STREAM : Exporter.ArrowFormat.FILE,
          a,
          n -> p.update(done.addAndGet(n)));
    }
  }
}

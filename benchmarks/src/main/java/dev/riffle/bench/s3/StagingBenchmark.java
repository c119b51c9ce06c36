package dev.riffle.bench.s3;

import dev.riffle.datagen.PayloadDataset;
import dev.riffle.dataset.Manifest;
import dev.riffle.dataset.ManifestCodec;
import dev.riffle.format.io.RandomAccessSource;
import dev.riffle.hadoop.HadoopStorage;
import dev.riffle.stage.SnapshotStager;
import dev.riffle.stage.StageOptions;
import dev.riffle.stage.StageReport;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Staging throughput against the raw parallel GET throughput of the same server, same client (S3A),
 * same part size and thread count, measured in one run, alternating; also staging with O_DIRECT off
 * (through the page cache), and the client's CPU seconds per GB of each. Needs the local S3 server
 * ({@link LocalRgw}); prints a Markdown table for {@code benchmarks/results/current/staging.md} and
 * writes it to {@code --out}. Every option defaults to its {@code RIFFLE_BENCH_*} environment
 * variable, as the commands in staging.md set them.
 *
 * <pre>
 * java --add-opens=java.base/java.nio=ALL-UNNAMED -cp benchmarks/target/benchmarks.jar \
 *     dev.riffle.bench.s3.StagingBenchmark [--files 8] [--mib 64] [--threads 16] [--part-mib 8]
 *     [--rounds 5] [--cache DIR] [--out target/staging-bench.md]
 * </pre>
 */
@Command(
    name = "StagingBenchmark",
    mixinStandardHelpOptions = true,
    description = {
      "Staging MB/s against raw parallel GETs of the same objects on the local S3 server,"
          + " alternating rounds; also staging through the page cache, and client CPU s/GB."
    })
public final class StagingBenchmark implements Callable<Integer> {
  @Option(
      names = "--files",
      defaultValue = "${env:RIFFLE_BENCH_FILES:-8}",
      description = "Objects to stage (RIFFLE_BENCH_FILES; default: ${DEFAULT-VALUE}).")
  int files;

  @Option(
      names = "--mib",
      defaultValue = "${env:RIFFLE_BENCH_MIB:-64}",
      description = "MiB per object (RIFFLE_BENCH_MIB; default: ${DEFAULT-VALUE}).")
  int mib;

  @Option(
      names = "--threads",
      defaultValue = "${env:RIFFLE_BENCH_THREADS:-16}",
      description = "Download threads (RIFFLE_BENCH_THREADS; default: ${DEFAULT-VALUE}).")
  int threads;

  @Option(
      names = "--part-mib",
      defaultValue = "${env:RIFFLE_BENCH_PART_MIB:-8}",
      description = "MiB per ranged GET (RIFFLE_BENCH_PART_MIB; default: ${DEFAULT-VALUE}).")
  int partMib;

  @Option(
      names = "--rounds",
      defaultValue = "${env:RIFFLE_BENCH_ROUNDS:-5}",
      description = "Rounds (RIFFLE_BENCH_ROUNDS; default: ${DEFAULT-VALUE}).")
  int rounds;

  @Option(
      names = "--cache",
      defaultValue = "${env:RIFFLE_BENCH_CACHE}",
      description =
          "Where the staged copies go, e.g. /dev/shm/x to take the local disk out"
              + " (RIFFLE_BENCH_CACHE; default: a temporary directory on the local disk).")
  Path cacheBase;

  @Option(
      names = "--out",
      defaultValue = "${env:RIFFLE_BENCH_OUT:-target/staging-bench.md}",
      description = "The Markdown table (RIFFLE_BENCH_OUT; default: ${DEFAULT-VALUE}).")
  Path out;

  public static void main(String[] args) {
    System.exit(new CommandLine(new StagingBenchmark()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    LocalRgw rgw = LocalRgw.find();
    String uri =
        "s3a://"
            + rgw.bucket
            + "/staging-bench/"
            + System.currentTimeMillis()
            + "-"
            + UUID.randomUUID().toString().substring(0, 8);
    Path tmp = Files.createTempDirectory("riffle-staging-bench");
    StringBuilder md = new StringBuilder();
    try (HadoopStorage s = new HadoopStorage(uri, rgw.conf(threads * 4))) {
      Manifest v1 = PayloadDataset.write(s, 8192, 1 << 20, 1);
      List<Manifest.DataFile> big = new ArrayList<>();
      SplittableRandom r = new SplittableRandom(7);
      byte[] bytes = new byte[mib << 20];
      for (int i = 0; i < files; i++) {
        for (int j = 0; j < bytes.length; j += 8) {
          long v = r.nextLong();
          for (int k = 0; k < 8; k++) {
            bytes[j + k] = (byte) (v >>> (8 * k));
          }
        }
        String path = String.format(Locale.ROOT, "data/bench%04d.riffle", i);
        try (OutputStream o = s.create(path)) {
          o.write(bytes);
        }
        String sha = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        // Not Riffle files: no footer CRC to record.
        big.add(new Manifest.DataFile(path, bytes.length, sha, 0, 0, null));
      }
      // Version 2 names only the big objects (not Riffle files: staging never parses them).
      Manifest v2 =
          new Manifest(
              1,
              v1.datasetId(),
              2,
              1L,
              v1.createdAt(),
              v1.schema(),
              big,
              null,
              null,
              null,
              null,
              null,
              null);
      s.createIfAbsent(Manifest.path(2), ManifestCodec.write(v2));
      long total = (long) files * bytes.length;

      md.append(
          String.format(
              Locale.ROOT,
              "%d objects × %d MiB = %d MiB, %d threads, %d MiB parts, S3A classic stream,"
                  + " cache in %s%n%n"
                  + "| round | raw parallel GET MB/s | staging MB/s | ratio | staging via page cache"
                  + " MB/s | ratio | client CPU s/GB: raw | staging | via page cache | retries"
                  + " | load (1 min) |%n"
                  + "|---|---|---|---|---|---|---|---|---|---|---|%n",
              files,
              mib,
              total >> 20,
              threads,
              partMib,
              cacheBase != null ? cacheBase : "a temporary directory on the local disk"));
      List<Double> ratios = new ArrayList<>();
      List<Double> raws = new ArrayList<>();
      List<Double> stageds = new ArrayList<>();
      for (int round = 1; round <= rounds; round++) {
        Path cache = (cacheBase != null ? cacheBase : tmp).resolve("cache" + round);
        StageOptions options =
            StageOptions.defaults().withThreads(threads).withPartBytes(partMib << 20);
        // Alternate which goes first, so neither always meets a warmer server or a busier disk.
        double raw = 0;
        long rawCpu = 0;
        if (round % 2 == 1) {
          long c0 = cpuNanos();
          raw = rawParallelGet(s, big, threads, partMib << 20);
          rawCpu = cpuNanos() - c0;
        }
        long c1 = cpuNanos();
        StageReport rep = new SnapshotStager(cache, options).stage(s, 2);
        long stageCpu = cpuNanos() - c1;
        deleteTree(cache);
        // The same without O_DIRECT: what the page-cache copy costs.
        long c2 = cpuNanos();
        StageReport viaPageCache =
            new SnapshotStager(cache, options.withDirectWrites(false)).stage(s, 2);
        long pageCacheCpu = cpuNanos() - c2;
        if (round % 2 == 0) {
          long c0 = cpuNanos();
          raw = rawParallelGet(s, big, threads, partMib << 20);
          rawCpu = cpuNanos() - c0;
        }
        // A rate over less than every byte would be no rate of staging.
        if (rep.bytesDownloaded() != total) {
          throw new IllegalStateException(
              "staging downloaded " + rep.bytesDownloaded() + " bytes, not " + total);
        }
        double staged = rep.megabytesPerSecond();
        raws.add(raw);
        stageds.add(staged);
        ratios.add(staged / raw);
        md.append(
            String.format(
                Locale.ROOT,
                "| %d | %.1f | %.1f | %.2f | %.1f | %.2f | %.2f | %.2f | %.2f | %d | %.1f |%n",
                round,
                raw,
                staged,
                staged / raw,
                viaPageCache.megabytesPerSecond(),
                viaPageCache.megabytesPerSecond() / raw,
                rawCpu / 1e9 / (total / 1e9),
                stageCpu / 1e9 / (total / 1e9),
                pageCacheCpu / 1e9 / (total / 1e9),
                rep.retries() + viaPageCache.retries(),
                ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage()));
        deleteTree(cache);
      }
      ratios.sort(null);
      raws.sort(null);
      stageds.sort(null);
      md.append(
          String.format(
              Locale.ROOT,
              "%nmedian raw %.1f MB/s, median staging %.1f MB/s, median ratio %.2f"
                  + " (odd rounds raw first, even rounds staging first)%n",
              raws.get(raws.size() / 2),
              stageds.get(stageds.size() / 2),
              ratios.get(ratios.size() / 2)));
      s.fileSystem().delete(s.root(), true);
    } finally {
      deleteTree(tmp);
    }
    System.out.println(md);
    Path parent = out.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    Files.writeString(out, md.toString());
    return 0;
  }

  /** CPU time of this JVM, all threads (user and system). */
  private static long cpuNanos() {
    return dev.riffle.loader.pipeline.ProcessCpu.processNanos();
  }

  /** The same ranged reads as staging, in the same thread count, into memory only: MB/s. */
  static double rawParallelGet(
      HadoopStorage s, List<Manifest.DataFile> files, int threads, int partBytes) throws Exception {
    List<long[]> parts = new ArrayList<>();
    for (int i = 0; i < files.size(); i++) {
      for (long off = 0; off < files.get(i).byteLength(); off += partBytes) {
        parts.add(new long[] {i, off, Math.min(partBytes, files.get(i).byteLength() - off)});
      }
    }
    AtomicInteger next = new AtomicInteger();
    AtomicLong bytes = new AtomicLong();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    long t0 = System.nanoTime();
    try {
      List<Future<?>> fs = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        fs.add(
            pool.submit(
                () -> {
                  ByteBuffer buf = ByteBuffer.allocate(partBytes);
                  // One stream per thread and object, as staging's source pool keeps. Parts
                  // come file by file, so a thread is done with a file when it takes the next
                  // one's part: closing then keeps open streams (and connections) bounded.
                  RandomAccessSource open = null;
                  int openFile = -1;
                  try {
                    int k;
                    while ((k = next.getAndIncrement()) < parts.size()) {
                      long[] p = parts.get(k);
                      int f = (int) p[0];
                      if (f != openFile) {
                        if (open != null) {
                          open.close();
                        }
                        open = s.open(files.get(f).path());
                        openFile = f;
                      }
                      buf.clear().limit((int) p[2]);
                      open.readFully(p[1], buf);
                      bytes.addAndGet(p[2]);
                    }
                  } finally {
                    if (open != null) {
                      open.close();
                    }
                  }
                  return null;
                }));
      }
      for (Future<?> f : fs) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
    return bytes.get() / ((System.nanoTime() - t0) / 1e9) / 1e6;
  }

  /** Deletes a tree, the read-only files staging leaves included. */
  static void deleteTree(Path p) throws IOException {
    if (!Files.exists(p)) {
      return;
    }
    try (var w = Files.walk(p)) {
      for (Path x : w.sorted(Comparator.reverseOrder()).toList()) {
        x.toFile().setWritable(true);
        Files.deleteIfExists(x);
      }
    }
  }
}

package dev.riffle.bench.harness;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The disk's limits as fio measures them on one file, with O_DIRECT: 4 KiB random reads (psync, one
 * job per calling thread of the take measurements) and 1 MiB sequential reads (libaio, queue depth
 * 16), 5 s each.
 */
public final class Fio {
  private Fio() {}

  /**
   * Runs fio on {@code file} and puts into {@code results}: {@code file}, {@code file_bytes}, the
   * {@code commands} run, {@code randread_4k_iops_cC} per concurrency and {@code
   * seqread_1m_bytes_per_s}. A figure fio could not give is left out.
   */
  public static void measure(Path file, int[] concurrency, Map<String, Object> results)
      throws Exception {
    results.put("file", file.toString());
    results.put("file_bytes", Files.size(file));
    for (int c : concurrency) {
      JsonNode j =
          run(
              file,
              results,
              "--rw=randread",
              "--bs=4k",
              "--ioengine=psync",
              "--numjobs=" + c,
              "--group_reporting");
      if (j != null) {
        double iops = j.path("jobs").path(0).path("read").path("iops").asDouble();
        results.put("randread_4k_iops_c" + c, iops);
        Reports.log(
            String.format(Locale.ROOT, "fio 4 KiB random read, %d threads: %,.0f IOPS", c, iops));
      }
    }
    JsonNode j =
        run(
            file,
            results,
            "--rw=read",
            "--bs=1M",
            "--ioengine=libaio",
            "--iodepth=16",
            "--numjobs=1");
    if (j != null) {
      double bw = j.path("jobs").path(0).path("read").path("bw_bytes").asDouble();
      results.put("seqread_1m_bytes_per_s", bw);
      Reports.log(String.format(Locale.ROOT, "fio 1 MiB sequential read: %,.0f MB/s", bw / 1e6));
    }
  }

  /** One fio job on the file, its command added to {@code results}; null if fio failed. */
  static JsonNode run(Path file, Map<String, Object> results, String... extra) throws Exception {
    List<String> cmd = new ArrayList<>();
    cmd.addAll(
        List.of(
            "fio",
            "--name=riffle",
            "--filename=" + file,
            "--direct=1",
            "--readonly",
            "--time_based",
            "--runtime=5",
            "--output-format=json"));
    cmd.addAll(List.of(extra));
    results.computeIfAbsent("commands", k -> new ArrayList<String>());
    @SuppressWarnings("unchecked")
    List<String> cmds = (List<String>) results.get("commands");
    cmds.add(String.join(" ", cmd));
    try {
      Process p = new ProcessBuilder(cmd).redirectErrorStream(false).start();
      byte[] outBytes;
      try (InputStream in = p.getInputStream()) {
        outBytes = in.readAllBytes();
      }
      if (p.waitFor() != 0) {
        Reports.log("fio failed: " + String.join(" ", cmd));
        return null;
      }
      String s = new String(outBytes, StandardCharsets.UTF_8);
      return new ObjectMapper().readTree(s.substring(s.indexOf('{')));
    } catch (IOException e) {
      Reports.log(
          "fio not available (" + e.getMessage() + "); install it with apt-get install -y fio");
      return null;
    }
  }
}

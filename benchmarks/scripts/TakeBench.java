// Warm random takes through whichever FileReader a riffle.jar holds (before and after the
// format-package move), for before-after.sh: java -cp riffle.jar TakeBench.java FILE ROWS TAKES
// [FIELD,FIELD...] (default: every field).
import java.lang.reflect.Method;
import java.nio.file.Path;
import java.util.SplittableRandom;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/** Warm random takes through whichever FileReader the class path holds: rows/s over N takes. */
public class TakeBench {
  public static void main(String[] a) throws Exception {
    Path file = Path.of(a[0]);
    int rowsPerTake = Integer.parseInt(a[1]);
    int takes = Integer.parseInt(a[2]);
    java.util.List<String> fields = a.length > 3 ? java.util.List.of(a[3].split(",")) : null;
    Class<?> fr;
    try {
      fr = Class.forName("dev.riffle.format.read.FileReader");
    } catch (ClassNotFoundException e) {
      fr = Class.forName("dev.riffle.format.FileReader");
    }
    try (BufferAllocator alloc = new RootAllocator()) {
      Object reader = fr.getMethod("open", Path.class, BufferAllocator.class).invoke(null, file, alloc);
      long n = (long) fr.getMethod("rowCount").invoke(reader);
      Method take = fr.getMethod("take", long[].class, java.util.List.class);
      SplittableRandom r = new SplittableRandom(42);
      long best = Long.MAX_VALUE;
      for (int round = 0; round < 2 * takes; round++) {
        long[] rows = new long[rowsPerTake];
        for (int i = 0; i < rows.length; i++) rows[i] = r.nextLong(n);
        long t0 = System.nanoTime();
        try (AutoCloseable root = (AutoCloseable) take.invoke(reader, rows, fields)) {}
        long t = System.nanoTime() - t0;
        if (round >= takes) best = Math.min(best, t); // second half: after warm-up
      }
      System.out.printf("%.0f%n", rowsPerTake / (best / 1e9));
      ((AutoCloseable) reader).close();
    }
  }
}

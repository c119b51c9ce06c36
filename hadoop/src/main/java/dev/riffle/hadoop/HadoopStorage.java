// Why this file stays whole (over 500 lines): see "Over 500 lines" in the class comment.
package dev.riffle.hadoop;

import dev.riffle.dataset.storage.LocalStorage;
import dev.riffle.dataset.storage.RetryPolicy;
import dev.riffle.dataset.storage.Storage;
import dev.riffle.format.io.DurableFiles;
import dev.riffle.format.io.RandomAccessSource;
import java.io.File;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.NoSuchFileException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.FilterFileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.StreamCapabilities;
import org.apache.hadoop.util.functional.FutureIO;

/**
 * A dataset under a Hadoop {@link FileSystem} root: {@code s3a://bucket/prefix}, {@code
 * hdfs://nn/dir}, {@code file:///dir}, or any other scheme on the class path.
 *
 * <p>{@link #createIfAbsent} is atomic per scheme:
 *
 * <ul>
 *   <li>{@code s3a}: a conditional PUT ({@code If-None-Match: *}) through {@code
 *       createFile().overwrite(false).must("fs.option.create.conditional.overwrite", true)}; the
 *       loser's {@code close()} gets 412. Only single PUTs are conditional (Ceph 16 ignores the
 *       condition on multipart uploads), so content must be smaller than {@code
 *       fs.s3a.multipart.size}.
 *   <li>{@code file}: {@link LocalStorage#createIfAbsent} on the same directory: a synced temporary
 *       file hard-linked to the target ({@code link(2)} fails if the target exists).
 *   <li>anything else: {@code create(path, false)}, atomic on HDFS (the NameNode decides). The file
 *       is visible, possibly partial, until the stream is closed.
 * </ul>
 *
 * <p>The storage owns its {@code FileSystem} instance ({@link FileSystem#newInstance}, not the
 * shared cache) and closes it in {@link #close}. On {@code file:} it uses the raw local file
 * system, so no {@code .crc} side files are written or expected, as with {@code LocalStorage}.
 *
 * <p>Retries: metadata calls, reads and deletes retry under {@link RetryPolicy} (S3A's own retries
 * off underneath); data-file uploads retry inside S3A within the same policy's bounds, on a second
 * S3A instance ({@link #boundS3aWriteRetries}), each retry told to the listener and none started
 * after the deadline ({@link UploadRetries}); the conditional create retries under the policy in a
 * way that cannot commit twice ({@link #s3aCreateIfAbsent}).
 *
 * <p>Over 500 lines: it is the one place where the storage contract meets Hadoop's (settings,
 * retries, reads, writes, atomic creates); split, each part would need the others' fields.
 */
public final class HadoopStorage implements Storage {
  /** Hadoop's option that turns {@code createFile().overwrite(false)} into a conditional PUT. */
  static final String CONDITIONAL_OVERWRITE = "fs.option.create.conditional.overwrite";

  static final String READ_POLICY = "fs.option.openfile.read.policy";
  static final String MULTIPART_SIZE = "fs.s3a.multipart.size";
  static final long DEFAULT_MULTIPART_SIZE = 64L << 20;

  /**
   * Bytes between two ranges of one {@code readRanges} call worth reading through to save a request
   * (default 1 MiB on object stores, 16 KiB on {@code file:}).
   */
  public static final String COALESCE_GAP = "riffle.read.coalesce.gap";

  /** Largest fetch that {@code readRanges} builds by joining ranges (default 16 MiB). */
  public static final String COALESCE_MAX = "riffle.read.coalesce.max";

  /**
   * S3A's limit on the GETs one {@code readVectored} call runs at once; its default (4) is raised
   * to 16 unless set, since a take's ranges are few and small.
   */
  static final String VECTORED_ACTIVE_READS = "fs.s3a.vectored.active.ranged.reads";

  /** Environment variables read by {@link #fromEnvironment()}. */
  public static final String ENV_ENDPOINT = "RIFFLE_S3_ENDPOINT";

  public static final String ENV_REGION = "RIFFLE_S3_REGION";
  public static final String ENV_ACCESS_KEY = "RIFFLE_S3_ACCESS_KEY";
  public static final String ENV_SECRET_KEY = "RIFFLE_S3_SECRET_KEY";

  private final FileSystem fs;
  private final FileSystem ops;

  /**
   * The caller's configuration (before {@link #boundS3aRetries}), from which {@link #writeFs()}
   * opens the file system of data-file writes.
   */
  private final Configuration userConf;

  /** S3A for {@link #create} and {@link #replace}, opened at the first write; null until then. */
  private FileSystem writeFs;

  /** {@link #writeFs}'s configuration, which names this storage to {@link UploadRetries}. */
  private Configuration writeConf;

  private final Path root;
  private final boolean local;
  private final boolean s3a;
  private final RangeCoalescing coalescing;
  private final String endpoint;
  private volatile RetryPolicy retry;
  private volatile RetryPolicy.Listener retryListener = RetryPolicy.Listener.NONE;

  /**
   * Whether the endpoint has answered a request (with data or an error): until it has, a request
   * that reaches no server gives up within {@link RetryPolicy#FIRST_CONTACT_SECONDS}.
   */
  private volatile boolean answered;

  /**
   * The same root as a {@link LocalStorage} on {@code file:}, whose {@code createIfAbsent} (synced
   * temporary file hard-linked to the target) this storage uses; null on other schemes.
   */
  private final LocalStorage localStorage;

  /**
   * Opens the file system of {@code rootUri} (a new instance owned by this storage).
   *
   * @param rootUri the dataset root, e.g. {@code s3a://bucket/prefix}; a path without a scheme is
   *     resolved against {@code fs.defaultFS}
   */
  public HadoopStorage(String rootUri, Configuration conf) throws IOException {
    Path path = new Path(rootUri);
    this.userConf = new Configuration(conf);
    userConf.setIfUnset(VECTORED_ACTIVE_READS, "16");
    Configuration c = new Configuration(userConf);
    boundS3aRetries(c);
    this.retry = retryPolicy(c);
    java.time.Duration floor = java.time.Duration.ofSeconds(1);
    if ("s3a".equalsIgnoreCase(path.toUri().getScheme())
        && org.apache.hadoop.fs.s3a.impl.AWSClientConfig.getMinimumOperationDuration()
                .compareTo(floor)
            > 0) {
      // S3A raises every network timeout to at least 15 s (a guard against "5" read as 5 ms),
      // which made the 5 s connect timeout above 15 s per attempt against an unroutable host.
      // Process-wide, and settings with units are deliberate: 1 s keeps the guard's point.
      org.apache.hadoop.fs.s3a.impl.AWSClientConfig.setMinimumOperationDuration(floor);
    }
    this.fs = FileSystem.newInstance(path.toUri(), c);
    try {
      this.root = fs.makeQualified(path);
      this.local = fs instanceof LocalFileSystem || fs instanceof RawLocalFileSystem;
      this.coalescing =
          new RangeCoalescing(
              c.getLongBytes(
                  COALESCE_GAP,
                  local ? RangeCoalescing.DEFAULT_LOCAL_GAP : RangeCoalescing.DEFAULT_REMOTE_GAP),
              c.getLongBytes(COALESCE_MAX, RangeCoalescing.DEFAULT_MAX));
      this.ops = fs instanceof LocalFileSystem ? ((FilterFileSystem) fs).getRawFileSystem() : fs;
      this.s3a = "s3a".equalsIgnoreCase(fs.getScheme());
      this.endpoint =
          s3a ? c.get("fs.s3a.endpoint", "the AWS S3 default endpoint") : fs.getUri().toString();
      this.localStorage = local ? new LocalStorage(new File(root.toUri()).toPath()) : null;
    } catch (RuntimeException e) {
      fs.close();
      throw e;
    }
  }

  /**
   * S3A's own retries (the SDK's and S3A's invoker's, which multiplied with Riffle's into minutes
   * of silence against a dead server) are turned off, and its connect and socket timeouts bounded,
   * unless a configuration file or the caller set them: {@link RetryPolicy} retries instead, once,
   * with progress lines and a deadline.
   */
  static void boundS3aRetries(Configuration c) {
    setUnlessUserSet(c, "fs.s3a.attempts.maximum", "0");
    setUnlessUserSet(c, "fs.s3a.retry.limit", "0");
    setUnlessUserSet(c, "fs.s3a.retry.throttle.limit", "0");
    setUnlessUserSet(c, "fs.s3a.connection.establish.timeout", "5s");
    // A socket that delivers nothing for this long is dead (the default, 200 s, hid a paused
    // server for minutes); a slow but flowing transfer never trips it.
    setUnlessUserSet(c, "fs.s3a.connection.timeout", "30s");
  }

  /**
   * S3A's retries for data-file writes, which Riffle cannot retry itself (S3A uploads a file's
   * blocks in the background while the writer streams on, and a failed upload is lost with its
   * stream): S3A's invoker retries each request of the upload (PUT, part, complete; all idempotent
   * per key, and data files have fresh names) up to {@code policy}'s attempts, with sleeps that
   * together stay within its retry window; the SDK's own retries stay off, so only one loop
   * retries. Hadoop's exponential backoff sleeps {@code interval * 2^k * [0.5, 1.5)} before retry
   * {@code k}, hence the interval. Throttling (503 SlowDown) gets the same bounds. Settings the
   * user made win, as in {@link #boundS3aRetries}.
   */
  static void boundS3aWriteRetries(Configuration c, RetryPolicy policy) {
    int retries = Math.min(policy.maxAttempts() - 1, 30);
    long sleeps = (1L << (retries + 1)) - 2;
    long interval =
        retries == 0
            ? policy.baseMillis()
            : Math.max(1, (long) (policy.retrySeconds() * 1000 / (1.5 * sleeps)));
    setUnlessUserSet(c, "fs.s3a.attempts.maximum", "0");
    setUnlessUserSet(c, "fs.s3a.retry.limit", Integer.toString(retries));
    setUnlessUserSet(c, "fs.s3a.retry.interval", interval + "ms");
    setUnlessUserSet(c, "fs.s3a.retry.throttle.limit", Integer.toString(retries));
    setUnlessUserSet(c, "fs.s3a.retry.throttle.interval", interval + "ms");
    setUnlessUserSet(c, "fs.s3a.connection.establish.timeout", "5s");
    setUnlessUserSet(c, "fs.s3a.connection.timeout", "30s");
  }

  /**
   * The file system that writes data files: on S3A a second instance with {@link
   * #boundS3aWriteRetries} (under the retry policy in force at the first write) whose retries
   * {@link UploadRetries} reports to the retry listener and stops at the policy's deadline,
   * elsewhere the one of reads (HDFS retries its own writes).
   */
  private synchronized FileSystem writeFs() throws IOException {
    if (!s3a) {
      return ops;
    }
    if (writeFs == null) {
      Configuration w = new Configuration(userConf);
      // S3A loads the interceptor by class name through the configuration's class loader, and by
      // default first replaces that loader with its own ("classloader isolation"). Under
      // spark-submit --jars its own is Spark's, which does not see the application's jars; so
      // this configuration keeps the loader that has the interceptor (a child of S3A's).
      w.setBoolean("fs.s3a.classloader.isolation", false);
      w.setClassLoader(UploadRetries.class.getClassLoader());
      boundS3aWriteRetries(w, retry);
      UploadRetries.register(w, this);
      try {
        writeFs = FileSystem.newInstance(root.toUri(), w);
      } catch (IOException | RuntimeException e) {
        UploadRetries.unregister(w);
        throw e;
      }
      writeConf = w;
    }
    return writeFs;
  }

  /** Sets {@code key} unless it was set other than by Hadoop's own {@code core-default.xml}. */
  private static void setUnlessUserSet(Configuration c, String key, String value) {
    String[] sources = c.getPropertySources(key);
    boolean onlyDefault =
        sources == null
            || java.util.Arrays.stream(sources).allMatch(src -> src.equals("core-default.xml"));
    if (onlyDefault) {
      c.set(key, value);
    }
  }

  /**
   * Hadoop keys (and {@code core-site.xml} settings) read by {@link #retryPolicy(Configuration)}.
   */
  public static final String RETRY_ATTEMPTS = "riffle.retry.attempts";

  public static final String RETRY_SECONDS = "riffle.retry.seconds";
  public static final String DEADLINE_SECONDS = "riffle.deadline.seconds";

  /**
   * {@link RetryPolicy#defaults()}, with {@code riffle.retry.attempts}, {@code
   * riffle.retry.seconds} and {@code riffle.deadline.seconds} (counted from this call) where the
   * configuration sets them.
   */
  public static RetryPolicy retryPolicy(Configuration conf) {
    RetryPolicy p = RetryPolicy.defaults();
    p = p.withAttempts(conf.getInt(RETRY_ATTEMPTS, p.maxAttempts()));
    p = p.withRetrySeconds(conf.getDouble(RETRY_SECONDS, p.retrySeconds()));
    double deadline = conf.getDouble(DEADLINE_SECONDS, 0);
    return deadline > 0 ? p.withDeadline(deadline) : p;
  }

  /** The server this storage talks to, for messages: the S3 endpoint, or the file system's URI. */
  @Override
  public String endpoint() {
    return endpoint;
  }

  /** The retry policy of this storage's calls ({@link RetryPolicy#fromConfiguration} at first). */
  public RetryPolicy retryPolicy() {
    return retry;
  }

  /** Replaces the retry policy, e.g. with a command's deadline. */
  public void retryPolicy(RetryPolicy policy) {
    this.retry = policy;
  }

  /** Who hears of retries (progress lines); none by default. */
  public void retryListener(RetryPolicy.Listener listener) {
    this.retryListener = listener;
  }

  public RetryPolicy.Listener retryListener() {
    return retryListener;
  }

  /** Runs {@code call} under this storage's retry policy (and listener). */
  public <T> T retrying(String what, RetryPolicy.IoCall<T> call) throws IOException {
    try {
      T result = retry.call(what, endpoint, retryListener, answered, call);
      answered = true;
      return result;
    } catch (IOException e) {
      if (!RetryPolicy.reachedNoServer(e)) {
        answered = true;
      }
      if (e.getClass().getName().equals("org.apache.hadoop.fs.s3a.UnknownStoreException")) {
        // S3A's message is the SDK's dump; the bucket and the endpoint are what a user checks.
        throw new IOException(
            what + ": no bucket " + root.toUri().getHost() + " at endpoint " + endpoint, e);
      }
      throw e;
    }
  }

  /**
   * Opens {@code uri} with {@link #fromEnvironment()} plus {@code extraConf} (Hadoop keys, e.g.
   * {@code fs.s3a.endpoint}), which win.
   */
  public static HadoopStorage open(String uri, Map<String, String> extraConf) throws IOException {
    Configuration conf = fromEnvironment();
    extraConf.forEach(conf::set);
    return new HadoopStorage(uri, conf);
  }

  /**
   * The S3A settings for an S3-compatible endpoint (Ceph RGW, MinIO) on top of the default Hadoop
   * configuration: endpoint and region, path-style access, TLS only for an {@code https://}
   * endpoint, the unsigned-payload signer (Ceph 16 over http rejects 0-byte PUTs signed with the
   * SDK's default streaming signature), the classic input stream (3.5.0's default "analytics"
   * stream caches blocks across streams), and static credentials. Null arguments leave Hadoop's
   * settings alone: no endpoint means AWS, no keys means the default credential chain.
   */
  public static Configuration s3aConfiguration(
      String endpoint, String region, String accessKey, String secretKey) {
    Configuration conf = new Configuration();
    applyS3a(conf, endpoint, region, accessKey, secretKey);
    return conf;
  }

  /**
   * The default Hadoop configuration ({@code core-site.xml} from the class path, plus {@code
   * core-site.xml}/{@code hdfs-site.xml} in {@code $HADOOP_CONF_DIR}) with the S3A settings of
   * {@link #s3aConfiguration} for whichever of {@code RIFFLE_S3_ENDPOINT}, {@code
   * RIFFLE_S3_REGION}, {@code RIFFLE_S3_ACCESS_KEY} and {@code RIFFLE_S3_SECRET_KEY} are set.
   */
  public static Configuration fromEnvironment() {
    return fromEnvironment(System.getenv());
  }

  static Configuration fromEnvironment(Map<String, String> env) {
    Configuration conf = new Configuration();
    String confDir = blankToNull(env.get("HADOOP_CONF_DIR"));
    if (confDir != null) {
      for (String name : new String[] {"core-site.xml", "hdfs-site.xml"}) {
        File f = new File(confDir, name);
        if (f.isFile()) {
          conf.addResource(new Path(f.toURI()));
        }
      }
    }
    String endpoint = blankToNull(env.get(ENV_ENDPOINT));
    String region = blankToNull(env.get(ENV_REGION));
    String accessKey = blankToNull(env.get(ENV_ACCESS_KEY));
    String secretKey = blankToNull(env.get(ENV_SECRET_KEY));
    if (endpoint != null || region != null || accessKey != null || secretKey != null) {
      applyS3a(conf, endpoint, region, accessKey, secretKey);
    }
    return conf;
  }

  static void applyS3a(
      Configuration conf, String endpoint, String region, String accessKey, String secretKey) {
    if (endpoint != null) {
      conf.set("fs.s3a.endpoint", endpoint);
      conf.setBoolean("fs.s3a.path.style.access", true);
      String lower = endpoint.toLowerCase(java.util.Locale.ROOT);
      if (lower.startsWith("https://")) {
        conf.setBoolean("fs.s3a.connection.ssl.enabled", true);
      } else if (lower.startsWith("http://")) {
        conf.setBoolean("fs.s3a.connection.ssl.enabled", false);
      }
      conf.set("fs.s3a.signing-algorithm", "AWS4UnsignedPayloadSignerType");
    }
    if (region != null) {
      conf.set("fs.s3a.endpoint.region", region);
    }
    conf.set("fs.s3a.input.stream.type", "classic");
    if (accessKey != null && secretKey != null) {
      conf.set(
          "fs.s3a.aws.credentials.provider",
          "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider");
      conf.set("fs.s3a.access.key", accessKey);
      conf.set("fs.s3a.secret.key", secretKey);
    }
  }

  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s.trim();
  }

  /** The file system (owned by this storage). */
  public FileSystem fileSystem() {
    return fs;
  }

  /** The qualified root path. */
  public Path root() {
    return root;
  }

  Path resolve(String path) {
    if (path.startsWith("/") || path.contains("..") || path.contains("\\")) {
      throw new IllegalArgumentException(uri() + ": not a relative dataset path: " + path);
    }
    return path.isEmpty() ? root : new Path(root, path);
  }

  @Override
  public String uri() {
    return root.toString();
  }

  private FileStatus status(Path p) throws IOException {
    try {
      return retrying("looking up " + p, () -> ops.getFileStatus(p));
    } catch (FileNotFoundException e) {
      throw noSuchFile(p, e);
    }
  }

  private FileStatus fileStatus(Path p) throws IOException {
    FileStatus st = status(p);
    if (!st.isFile()) {
      throw new IOException(p + ": is a directory, not an object");
    }
    return st;
  }

  private static NoSuchFileException noSuchFile(Path p, IOException cause) {
    NoSuchFileException e = new NoSuchFileException(p.toString());
    e.initCause(cause);
    return e;
  }

  private FSDataInputStream openStream(Path p, FileStatus st, String policy) throws IOException {
    try {
      return FutureIO.awaitFuture(
          ops.openFile(p)
              .withFileStatus(st)
              .opt(READ_POLICY, policy)
              .opt("fs.option.openfile.length", Long.toString(st.getLen()))
              .build());
    } catch (FileNotFoundException e) {
      throw noSuchFile(p, e);
    }
  }

  /** An object opened for random reads: its name, stream and length. */
  public record OpenedObject(String name, FSDataInputStream stream, long length) {}

  /**
   * Opens an object for random reads and returns the stream itself, for sources that read it their
   * own way (e.g. {@code readVectored} in the lazy chunk cache). The caller closes the stream.
   *
   * @throws NoSuchFileException if it does not exist
   */
  public OpenedObject openStream(String path) throws IOException {
    Path p = resolve(path);
    FileStatus st = fileStatus(p);
    return new OpenedObject(
        p.toString(), retrying("opening " + p, () -> openStream(p, st, "random")), st.getLen());
  }

  @Override
  public RandomAccessSource open(String path) throws IOException {
    Path p = resolve(path);
    return source(p, fileStatus(p));
  }

  /**
   * Opens the object with the status that {@code opened} was opened with (its length, and on S3A
   * the ETag that S3A checks each GET against), without looking it up again: on S3A no HEAD.
   */
  @Override
  public RandomAccessSource openAgain(String path, RandomAccessSource opened) throws IOException {
    Path p = resolve(path);
    if (opened instanceof HadoopSource h && h.owner() == this && h.status().getPath().equals(p)) {
      return source(p, h.status());
    }
    return open(path);
  }

  private HadoopSource source(Path p, FileStatus st) throws IOException {
    return new HadoopSource(
        p.toString(),
        retrying("opening " + p, () -> openStream(p, st, "random")),
        st,
        !local,
        coalescing,
        this);
  }

  /**
   * Opens the object for writing. Where the stream can {@code hsync} (local files, HDFS), {@code
   * close()} does so first, and on {@code file:} also syncs the directory, so that the object is
   * durable once closed; on S3 the object exists only once the upload completes at close.
   */
  @Override
  public OutputStream create(String path) throws IOException {
    Path p = resolve(path);
    FSDataOutputStream stream;
    try {
      stream = writeFs().create(p, true);
    } catch (IOException e) {
      throw uploadFailed(p, e);
    }
    File dir = local ? new File(p.getParent().toUri()) : null;
    return new java.io.FilterOutputStream(stream) {
      private boolean closed;

      @Override
      public void write(int b) throws IOException {
        try {
          out.write(b);
        } catch (IOException e) {
          throw uploadFailed(p, e);
        }
      }

      @Override
      public void write(byte[] b, int off, int len) throws IOException {
        try {
          out.write(b, off, len);
        } catch (IOException e) {
          throw uploadFailed(p, e);
        }
      }

      @Override
      public void close() throws IOException {
        if (closed) {
          return;
        }
        closed = true;
        try (FSDataOutputStream o = stream) {
          if (o.hasCapability(StreamCapabilities.HSYNC)) {
            o.hsync();
          }
        } catch (IOException e) {
          throw uploadFailed(p, e);
        }
        if (dir != null) {
          DurableFiles.syncDirectory(dir.toPath());
        }
      }
    };
  }

  /**
   * The error of a write to S3 that S3A's bounded retries ({@link #boundS3aWriteRetries}) gave up
   * on, in the words of {@link RetryPolicy}'s: what, the bounds, the last error, the endpoint.
   * Permanent errors (access denied, ...) and other schemes' pass unchanged.
   */
  private IOException uploadFailed(Path p, IOException e) {
    RetryPolicy r = retry;
    if (s3a && r.hasDeadline()) {
      try {
        r.checkDeadline("writing " + p, endpoint);
      } catch (IOException deadline) {
        deadline.initCause(e);
        return deadline;
      }
    }
    if (!s3a || !RetryPolicy.isTransient(e)) {
      return e;
    }
    return new IOException(
        "writing "
            + p
            + ": gave up after at most "
            + r.maxAttempts()
            + " attempts per request and "
            + String.format(java.util.Locale.ROOT, "%.1f", r.retrySeconds())
            + " s of retries (--retries, riffle.retry.attempts; --retry-seconds,"
            + " riffle.retry.seconds); last error: "
            + RetryPolicy.describe(e)
            + "; endpoint "
            + endpoint,
        e);
  }

  @Override
  public void createIfAbsent(String path, byte[] content) throws IOException {
    Path p = resolve(path);
    if (local) {
      try {
        localStorage.createIfAbsent(path, content);
      } catch (FileAlreadyExistsException e) {
        // Name the object by this storage's URI, as on every other scheme.
        throw alreadyExists(p, e);
      }
    } else if (s3a) {
      s3aCreateIfAbsent(path, p, content);
    } else {
      try (FSDataOutputStream out = ops.create(p, false)) {
        out.write(content);
      } catch (org.apache.hadoop.fs.FileAlreadyExistsException e) {
        throw alreadyExists(p, e);
      }
    }
  }

  /**
   * The conditional PUT under the retry policy, retried so that it can neither commit twice (the
   * PUT stays conditional) nor take its own success for another writer's: an attempt that failed
   * after its request may have reached the server (a reset, a lost response) may have created the
   * object, so a later 412 reads the object back, and the same bytes mean this call created it.
   * (Another writer's identical bytes would be the same commit.)
   */
  private void s3aCreateIfAbsent(String path, Path p, byte[] content) throws IOException {
    S3aConditionalCreate.checkFitsOnePut(ops, p, content);
    String what = "creating " + p;
    long start = System.nanoTime();
    boolean mayHaveLanded = false;
    for (int attempt = 1; ; attempt++) {
      retry.checkDeadline(what, endpoint);
      try {
        RetryPolicy.owning(
            () -> {
              S3aConditionalCreate.createIfAbsent(ops, p, content);
              return null;
            });
        return;
      } catch (FileAlreadyExistsException e) {
        if (mayHaveLanded && java.util.Arrays.equals(readAll(path), content)) {
          return;
        }
        throw e;
      } catch (IOException e) {
        mayHaveLanded |= !S3aConditionalCreate.neverSent(e);
        long wait = retry.retryAfter(e, attempt, start, what, endpoint);
        retryListener.retrying(what, attempt, retry.maxAttempts(), RetryPolicy.describe(e));
        try {
          Thread.sleep(wait);
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          throw new java.io.InterruptedIOException("interrupted while retrying " + what);
        }
      }
    }
  }

  /**
   * On {@code file:} as {@link LocalStorage#replace} (a synced temporary file renamed into place);
   * elsewhere a single create with overwrite, whole on object stores (the object appears at close).
   */
  @Override
  public void replace(String path, byte[] content) throws IOException {
    if (local) {
      localStorage.replace(path, content);
    } else {
      Storage.super.replace(path, content);
    }
  }

  static FileAlreadyExistsException alreadyExists(Path p, Throwable cause) {
    FileAlreadyExistsException e = new FileAlreadyExistsException(p.toString());
    e.initCause(cause);
    return e;
  }

  @Override
  public byte[] readAll(String path) throws IOException {
    Path p = resolve(path);
    FileStatus st = fileStatus(p);
    long len = st.getLen();
    if (len > Integer.MAX_VALUE - 8) {
      throw new IOException(p + ": too large to read into memory (" + len + " bytes)");
    }
    byte[] bytes = new byte[(int) len];
    if (len > 0) {
      retrying(
          "reading " + p,
          () -> {
            try (FSDataInputStream in = openStream(p, st, "whole-file")) {
              in.readFully(0, bytes);
            }
            return null;
          });
    }
    return bytes;
  }

  @Override
  public List<String> list(String directory) throws IOException {
    Path dir = resolve(directory);
    FileStatus[] statuses;
    try {
      statuses = retrying("listing " + dir, () -> ops.listStatus(dir));
    } catch (FileNotFoundException e) {
      if (s3a && answeredByServer(e)) {
        // An S3 server lists a missing prefix as empty and a missing bucket as NoSuchBucket; a
        // bare 404 to the listing itself comes from something else (a proxy, a web server).
        throw new IOException(
            "listing "
                + dir
                + ": endpoint "
                + endpoint
                + " answered HTTP "
                + statusCode(e)
                + " to a bucket listing: is it an S3 server, and the bucket "
                + root.toUri().getHost()
                + " there?",
            e);
      }
      return List.of();
    }
    String dirPath = dir.toUri().getPath();
    List<String> names = new ArrayList<>();
    for (FileStatus st : statuses) {
      Path parent = st.getPath().getParent();
      // listStatus of a file returns the file itself: not a directory, so no children.
      if (st.isFile() && parent != null && samePath(parent.toUri().getPath(), dirPath)) {
        names.add(st.getPath().getName());
      }
    }
    Collections.sort(names);
    return names;
  }

  /**
   * Whether a not-found came from the server's answer to the request itself (an SDK service
   * exception among its causes), not from S3A finding no objects under a prefix.
   */
  private static boolean answeredByServer(Throwable e) {
    int depth = 0;
    for (Throwable c = e.getCause(); c != null && depth < 16; c = c.getCause(), depth++) {
      for (Class<?> k = c.getClass(); k != null; k = k.getSuperclass()) {
        if (k.getName().equals("software.amazon.awssdk.awscore.exception.AwsServiceException")) {
          return true;
        }
      }
    }
    return false;
  }

  private static final java.util.regex.Pattern STATUS_CODE =
      java.util.regex.Pattern.compile("Status Code: (\\d{3})");

  /** The HTTP status in the SDK's message, as S3A keeps it; 404 (not found) if none is there. */
  private static String statusCode(Throwable e) {
    var m = STATUS_CODE.matcher(String.valueOf(e.getMessage()));
    return m.find() ? m.group(1) : "404";
  }

  private static boolean samePath(String a, String b) {
    return stripSlash(a).equals(stripSlash(b));
  }

  private static String stripSlash(String s) {
    return s.endsWith("/") && s.length() > 1 ? s.substring(0, s.length() - 1) : s;
  }

  @Override
  public boolean exists(String path) throws IOException {
    Path p = resolve(path);
    try {
      retrying("looking up " + p, () -> ops.getFileStatus(p));
      return true;
    } catch (FileNotFoundException e) {
      return false;
    }
  }

  @Override
  public long length(String path) throws IOException {
    return fileStatus(resolve(path)).getLen();
  }

  @Override
  public Instant lastModified(String path) throws IOException {
    return Instant.ofEpochMilli(fileStatus(resolve(path)).getModificationTime());
  }

  @Override
  public void delete(String path) throws IOException {
    Path p = resolve(path);
    // Deleting twice is deleting once: safe to retry.
    retrying("deleting " + p, () -> ops.delete(p, false));
  }

  /** The key prefix of the root on S3 ("" for a bucket's top, else "a/b/"). */
  private String rootKey() {
    String k = root.toUri().getPath();
    k = k.startsWith("/") ? k.substring(1) : k;
    return k.isEmpty() || k.endsWith("/") ? k : k + "/";
  }

  /** On S3A, the multipart uploads begun under the root and neither completed nor aborted. */
  @Override
  public List<PendingUpload> pendingUploads() throws IOException {
    if (!s3a) {
      return List.of();
    }
    String prefix = rootKey();
    var uploads =
        retrying(
            "listing incomplete uploads under " + root,
            () -> ((org.apache.hadoop.fs.s3a.S3AFileSystem) ops).listMultipartUploads(prefix));
    List<PendingUpload> pending = new ArrayList<>();
    for (var u : uploads) {
      if (u.key().startsWith(prefix) && u.key().length() > prefix.length()) {
        pending.add(
            new PendingUpload(u.key().substring(prefix.length()), u.uploadId(), u.initiated()));
      }
    }
    return pending;
  }

  @Override
  public void abortUpload(PendingUpload upload) throws IOException {
    if (!s3a) {
      Storage.super.abortUpload(upload);
    }
    Path p = resolve(upload.path());
    String key = rootKey() + upload.path();
    try {
      // Aborting twice is aborting once: safe to retry.
      retrying(
          "aborting the upload of " + p,
          () -> {
            ((org.apache.hadoop.fs.s3a.S3AFileSystem) ops).abortMultipartUpload(key, upload.id());
            return null;
          });
    } catch (FileNotFoundException e) {
      // Completed or aborted meanwhile (S3 says NoSuchUpload).
    }
  }

  @Override
  public void close() throws IOException {
    FileSystem w;
    Configuration wc;
    synchronized (this) {
      w = writeFs;
      wc = writeConf;
      writeFs = null;
      writeConf = null;
    }
    try {
      if (w != null) {
        w.close();
      }
    } finally {
      if (wc != null) {
        UploadRetries.unregister(wc);
      }
      fs.close();
    }
  }

  @Override
  public String toString() {
    return "HadoopStorage[" + uri() + "]";
  }
}

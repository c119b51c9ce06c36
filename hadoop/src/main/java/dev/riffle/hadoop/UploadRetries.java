package dev.riffle.hadoop;

import dev.riffle.dataset.storage.RetryPolicy;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.conf.Configurable;
import org.apache.hadoop.conf.Configuration;
import software.amazon.awssdk.core.SdkRequest;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttribute;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;

/**
 * Makes S3A's retries of a storage's writes (data-file PUTs, multipart parts, the upload's start
 * and completion) visible and bounded like Riffle's own: S3A retries them in its background upload
 * threads, out of {@link RetryPolicy}'s reach, so this SDK interceptor, installed on the write file
 * system only ({@code fs.s3a.audit.execution.interceptors}), watches every request instead. Each
 * request is one attempt (the SDK's own retries are off), so a request seen again after a failure
 * is S3A's retry: it goes to the storage's {@link RetryPolicy.Listener} as "upload of KEY part N"
 * (attempt, maximum, the last failure's cause). And no attempt starts after the storage's command
 * deadline: one that would fails at once with an {@link InterruptedIOException} cause, which S3A
 * does not retry. Aborts are exempt, so that a failed upload still cleans up its parts.
 *
 * <p>S3A creates the interceptor by class name and hands it its configuration; {@link #KEY} there
 * names the storage it reports to ({@link #register}). S3A installs such interceptors only with its
 * auditing on ({@code fs.s3a.audit.enabled}, the default); a user who turns that off gets S3A's
 * bounded retries without the lines and the deadline.
 */
public final class UploadRetries implements ExecutionInterceptor, Configurable {
  /** The configuration key that names the storage ({@link #register}). */
  static final String KEY = "riffle.internal.upload.storage";

  private static final Map<String, HadoopStorage> STORAGES = new ConcurrentHashMap<>();

  private static final ExecutionAttribute<String> WHAT =
      new ExecutionAttribute<>("riffle.upload.what");

  /** Failed attempts of requests that have not succeeded yet, by what they are. */
  private final Map<String, Failure> failures = new ConcurrentHashMap<>();

  private Configuration conf;
  private HadoopStorage storage;

  private record Failure(int attempts, String cause) {}

  /** S3A calls this (by class name). */
  public UploadRetries() {}

  /** Installs the interceptor in {@code c} for {@code storage}; undone by {@link #unregister}. */
  static void register(Configuration c, HadoopStorage storage) {
    String id = UUID.randomUUID().toString();
    STORAGES.put(id, storage);
    c.set(KEY, id);
    String key = "fs.s3a.audit.execution.interceptors";
    String others = c.getTrimmed(key, "");
    c.set(
        key,
        others.isEmpty()
            ? UploadRetries.class.getName()
            : others + "," + UploadRetries.class.getName());
  }

  static void unregister(Configuration c) {
    String id = c.get(KEY);
    if (id != null) {
      STORAGES.remove(id);
    }
  }

  @Override
  public void setConf(Configuration conf) {
    this.conf = conf;
    String id = conf.get(KEY);
    this.storage = id == null ? null : STORAGES.get(id);
  }

  @Override
  public Configuration getConf() {
    return conf;
  }

  @Override
  public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
    HadoopStorage s = storage;
    if (s == null) {
      return;
    }
    SdkRequest r = context.request();
    String what = describe(s, r);
    attributes.putAttribute(WHAT, what);
    RetryPolicy policy = s.retryPolicy();
    if (!isAbort(r)) {
      try {
        policy.checkDeadline(what, s.endpoint());
      } catch (IOException e) {
        throw SdkClientException.builder().message(e.getMessage()).cause(e).build();
      }
    }
    Failure f = failures.get(what);
    if (f != null) {
      s.retryListener().retrying(what, f.attempts(), policy.maxAttempts(), f.cause());
    }
  }

  @Override
  public void afterExecution(Context.AfterExecution context, ExecutionAttributes attributes) {
    String what = attributes.getAttribute(WHAT);
    if (what != null) {
      failures.remove(what);
    }
  }

  @Override
  public void onExecutionFailure(Context.FailedExecution context, ExecutionAttributes attributes) {
    String what = attributes.getAttribute(WHAT);
    if (what == null) {
      return;
    }
    Failure f = new Failure(1, RetryPolicy.describe(context.exception()));
    failures.merge(what, f, (a, b) -> new Failure(a.attempts() + 1, b.cause()));
  }

  private static boolean isAbort(SdkRequest r) {
    return r.getClass().getSimpleName().equals("AbortMultipartUploadRequest");
  }

  /**
   * A request in a progress line's words: "upload of s3a://b/k part 3", "start of the upload of
   * s3a://b/k", ...; other requests by their operation's name.
   */
  static String describe(HadoopStorage s, SdkRequest r) {
    String key = r.getValueForField("Key", String.class).orElse("");
    String bucket = r.getValueForField("Bucket", String.class).orElse(s.root().toUri().getHost());
    String uri = "s3a://" + bucket + "/" + key;
    String op = r.getClass().getSimpleName().replaceFirst("Request$", "");
    return switch (op) {
      case "PutObject" -> "upload of " + uri;
      case "UploadPart" ->
          "upload of "
              + uri
              + " part "
              + r.getValueForField("PartNumber", Integer.class).map(String::valueOf).orElse("?");
      case "CreateMultipartUpload" -> "start of the upload of " + uri;
      case "CompleteMultipartUpload" -> "completion of the upload of " + uri;
      case "AbortMultipartUpload" -> "abort of the upload of " + uri;
      default -> op + " " + uri;
    };
  }
}

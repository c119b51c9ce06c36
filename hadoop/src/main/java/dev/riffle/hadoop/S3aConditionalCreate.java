package dev.riffle.hadoop;

import java.io.IOException;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FSDataOutputStreamBuilder;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.s3a.AWSServiceIOException;
import org.apache.hadoop.fs.s3a.RemoteFileChangedException;

/**
 * Create-if-absent on S3A: one PUT with {@code If-None-Match: *}. Kept apart from {@link
 * HadoopStorage} so that S3A classes load only for {@code s3a:} storages.
 */
final class S3aConditionalCreate {
  private S3aConditionalCreate() {}

  /**
   * Fails unless {@code content} fits in one PUT: a permanent error, checked before any attempt.
   */
  static void checkFitsOnePut(FileSystem fs, Path p, byte[] content) throws IOException {
    long limit =
        fs.getConf()
            .getLongBytes(HadoopStorage.MULTIPART_SIZE, HadoopStorage.DEFAULT_MULTIPART_SIZE);
    if (content.length >= limit) {
      throw new IOException(
          p
              + ": "
              + content.length
              + " bytes are too many for an atomic create-if-absent; it must fit in one PUT,"
              + " below "
              + HadoopStorage.MULTIPART_SIZE
              + " = "
              + limit
              + " (the condition of a multipart upload is ignored by some servers)");
    }
  }

  /**
   * One attempt: HadoopStorage retries it (AWS's 409 ConditionalRequestConflict, while another
   * conditional write is in flight, included).
   */
  static void createIfAbsent(FileSystem fs, Path p, byte[] content) throws IOException {
    try {
      // The 412 of a lost race surfaces from close(), which try-with-resources rethrows.
      FSDataOutputStreamBuilder<?, ?> builder = fs.createFile(p);
      builder.overwrite(false);
      builder.must(HadoopStorage.CONDITIONAL_OVERWRITE, true);
      try (FSDataOutputStream out = builder.build()) {
        out.write(content);
      }
    } catch (IOException e) {
      if (alreadyExists(e)) {
        throw HadoopStorage.alreadyExists(p, e);
      }
      throw e;
    }
  }

  /** A 412 on the conditional PUT, or S3A's own existence probe, anywhere in the cause chain. */
  static boolean alreadyExists(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof RemoteFileChangedException
          || t instanceof org.apache.hadoop.fs.FileAlreadyExistsException
          || t instanceof java.nio.file.FileAlreadyExistsException
          || (t instanceof AWSServiceIOException
              && ((AWSServiceIOException) t).statusCode() == 412)) {
        return true;
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return false;
  }

  /**
   * Whether a failed attempt certainly sent nothing: its connection was refused or never
   * established, so the server cannot have created the object.
   */
  static boolean neverSent(Throwable e) {
    int depth = 0;
    for (Throwable t = e; t != null && depth < 16; t = t.getCause(), depth++) {
      if (t instanceof java.net.ConnectException
          || t instanceof java.net.UnknownHostException
          || t instanceof java.net.NoRouteToHostException
          || t.getClass().getSimpleName().equals("ConnectTimeoutException")) {
        return true;
      }
      String m = t.getMessage();
      if (m != null && m.contains("connect timed out")) {
        return true;
      }
    }
    return false;
  }
}

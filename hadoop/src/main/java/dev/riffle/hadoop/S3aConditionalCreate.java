package dev.riffle.hadoop;

import java.io.IOException;
import java.io.InterruptedIOException;
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
  /** AWS answers 409 ConditionalRequestConflict while another conditional write is in flight. */
  private static final int MAX_ATTEMPTS = 4;

  private S3aConditionalCreate() {}

  static void createIfAbsent(FileSystem fs, Path p, byte[] content) throws IOException {
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
    for (int attempt = 1; ; attempt++) {
      try {
        // The 412 of a lost race surfaces from close(), which try-with-resources rethrows.
        FSDataOutputStreamBuilder<?, ?> builder = fs.createFile(p);
        builder.overwrite(false);
        builder.must(HadoopStorage.CONDITIONAL_OVERWRITE, true);
        try (FSDataOutputStream out = builder.build()) {
          out.write(content);
        }
        return;
      } catch (IOException e) {
        if (alreadyExists(e)) {
          throw HadoopStorage.alreadyExists(p, e);
        }
        if (attempt < MAX_ATTEMPTS && statusCode(e) == 409) {
          try {
            Thread.sleep(50L << attempt);
          } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
            InterruptedIOException x = new InterruptedIOException(p + ": interrupted");
            x.initCause(e);
            throw x;
          }
          continue;
        }
        throw e;
      }
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

  private static int statusCode(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof AWSServiceIOException) {
        return ((AWSServiceIOException) t).statusCode();
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return -1;
  }
}

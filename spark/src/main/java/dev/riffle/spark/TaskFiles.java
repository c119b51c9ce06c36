package dev.riffle.spark;

import dev.riffle.dataset.Manifest;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.connector.write.WriterCommitMessage;

/**
 * What a task sends the driver when it commits: the data files it wrote, in order.
 *
 * @param partitionId the task's partition, which orders the files of the version
 * @param files the files, with their rows counted from 0 within the task
 */
record TaskFiles(int partitionId, List<FileInfo> files) implements WriterCommitMessage {

  /** A written data file (a serializable {@link Manifest.DataFile} without its global row). */
  record FileInfo(String path, long byteLength, String sha256, long rowCount, String footerCrc32c)
      implements Serializable {}

  static TaskFiles of(int partitionId, List<Manifest.DataFile> files) {
    List<FileInfo> out = new ArrayList<>();
    for (Manifest.DataFile f : files) {
      out.add(new FileInfo(f.path(), f.byteLength(), f.sha256(), f.rowCount(), f.footerCrc32c()));
    }
    return new TaskFiles(partitionId, out);
  }

  List<Manifest.DataFile> dataFiles() {
    List<Manifest.DataFile> out = new ArrayList<>();
    for (FileInfo f : files) {
      out.add(
          new Manifest.DataFile(
              f.path(), f.byteLength(), f.sha256(), f.rowCount(), 0, f.footerCrc32c()));
    }
    return out;
  }
}

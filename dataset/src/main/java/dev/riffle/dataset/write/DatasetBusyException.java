package dev.riffle.dataset.write;

import java.io.IOException;
import java.util.List;

/** gc found fresh writer leases on a dataset and collected nothing. */
public final class DatasetBusyException extends IOException {
  private static final long serialVersionUID = 1L;

  /** The fresh leases, described. */
  private final List<String> leases;

  public DatasetBusyException(String uri, List<WriterLease.Status> fresh) {
    super(
        "not collecting garbage in "
            + uri
            + ": "
            + (fresh.size() == 1
                ? "a writer holds a lease: "
                : fresh.size() + " writers hold leases: ")
            + String.join("; ", fresh.stream().map(WriterLease.Status::describe).toList())
            + ". Its unpublished files look like orphans; run gc once it has finished, or with"
            + " --force if it is gone");
    this.leases = fresh.stream().map(WriterLease.Status::describe).toList();
  }

  /** The fresh leases, as {@link WriterLease.Status#describe()} gives them. */
  public List<String> leases() {
    return leases;
  }
}

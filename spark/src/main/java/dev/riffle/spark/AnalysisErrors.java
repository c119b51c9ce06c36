package dev.riffle.spark;

import org.apache.spark.QueryContext;
import org.apache.spark.sql.AnalysisException;
import scala.Option;

/**
 * Spark's {@link AnalysisException} with a plain message: what a user gets for a query that cannot
 * run as written (an unknown option, version or column), as for Spark's own sources, and not an I/O
 * or internal error. It is a checked exception that Spark's Scala code throws from methods that do
 * not declare it, and so does this class: {@code throw AnalysisErrors.of(...)}.
 */
final class AnalysisErrors {
  private AnalysisErrors() {}

  /** Throws the exception (the return type lets a caller write {@code throw of(...)}). */
  static RuntimeException of(String message) {
    return of(message, null);
  }

  static RuntimeException of(String message, Throwable cause) {
    throw AnalysisErrors.<RuntimeException>sneaky(exception(message, cause));
  }

  static AnalysisException exception(String message, Throwable cause) {
    return new AnalysisException(
        message,
        Option.empty(),
        Option.empty(),
        Option.apply(cause),
        Option.empty(),
        scala.collection.immutable.Map$.MODULE$.empty(),
        new QueryContext[0]);
  }

  @SuppressWarnings("unchecked")
  private static <T extends Throwable> T sneaky(Throwable t) throws T {
    throw (T) t;
  }
}

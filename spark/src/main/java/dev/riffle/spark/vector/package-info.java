/**
 * Spark {@code ColumnVector}s over the Arrow vectors Riffle returns, without copying: Spark's
 * {@code ArrowColumnVector} for what it reads natively, and columns that decode categoricals and
 * present fixed-size lists, unsigned ints and other time units as Spark types.
 */
package dev.riffle.spark.vector;

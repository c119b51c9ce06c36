/**
 * Converters between Riffle datasets and other formats: Parquet and Arrow IPC into datasets ({@link
 * dev.riffle.convert.ParquetConverter}, {@link dev.riffle.convert.ArrowIpcConverter}), and dataset
 * versions back out to Parquet and Arrow IPC ({@link dev.riffle.convert.Exporter}).
 *
 * <p>Every converter streams: memory is bounded by a few batches (and, for Parquet input, by one
 * row group's compressed column chunks), never by the size of a file. Output is atomic: a dataset
 * version is published last by {@link dev.riffle.dataset.write.DatasetWriter}, an exported file is
 * renamed into place last ({@link dev.riffle.convert.OutputTarget}). Bad input fails with an {@link
 * dev.riffle.convert.InputException} whose one-line message names the file and what is wrong.
 */
package dev.riffle.convert;

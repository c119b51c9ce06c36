package dev.riffle.spark;

import org.apache.spark.sql.connector.read.InputPartition;

/**
 * One input partition: rows {@code [start, end)} of one data file, and of those only the rows in
 * {@code rows} when the view leaves some out.
 *
 * @param path the file, relative to the dataset root
 * @param byteLength its length, as the manifest says (checked when opened)
 * @param rowCount its rows, as the manifest says (checked when opened)
 * @param footerCrc32c its footer CRC, as the manifest says (checked when opened), or null if the
 *     manifest does not record it
 * @param version the dataset version read, for messages
 * @param firstRow the global id of its first row
 * @param start first row of the partition, within the file
 * @param end end (exclusive) of the partition, within the file
 * @param rows the global ids to read (a portable Roaring bitmap, base64), or null for all of {@code
 *     [start, end)}
 */
record FilePartition(
    String path,
    long byteLength,
    long rowCount,
    String footerCrc32c,
    long version,
    long firstRow,
    long start,
    long end,
    String rows)
    implements InputPartition {}

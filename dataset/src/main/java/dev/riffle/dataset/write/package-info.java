/**
 * Writes datasets: files of one version with shared dictionary codes ({@link
 * dev.riffle.dataset.write.DatasetWriter}), publishing a version with an atomic create-if-absent
 * ({@link dev.riffle.dataset.write.Publisher}), appends, splits and deletions as new versions, and
 * garbage collection of files no version names ({@link dev.riffle.dataset.write.DatasetGc}), which
 * honours the leases that running writers hold ({@link dev.riffle.dataset.write.WriterLease}).
 */
package dev.riffle.dataset.write;

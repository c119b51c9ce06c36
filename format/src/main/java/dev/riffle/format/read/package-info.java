/**
 * Reads Riffle files: {@link dev.riffle.format.read.FileReader} opens a file (footer, directory,
 * schema), plans takes of rows by number into byte ranges ({@link
 * dev.riffle.format.read.TakePlan}), reads them through the I/O engine and decodes them into Arrow
 * vectors; {@link dev.riffle.format.read.ScanCursor} reads pages in order with read-ahead and page
 * checksums. Every read is counted in {@link dev.riffle.format.read.ReadStats}.
 */
package dev.riffle.format.read;

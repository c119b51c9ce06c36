/**
 * Where the reader's bytes come from: positional reads from files, and later object stores and
 * caches, behind one {@link dev.riffle.format.io.RandomAccessSource} interface.
 */
package dev.riffle.format.io;

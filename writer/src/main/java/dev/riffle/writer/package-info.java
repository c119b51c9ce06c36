/**
 * Writes Riffle files from Arrow batches: page buffering, the per-page layout choice, dictionary
 * remapping and atomic publication of finished files.
 */
package dev.riffle.writer;

/**
 * Writes Riffle files from Arrow batches: page buffering, the per-page layout choice, dictionary
 * remapping, deterministic bytes and atomic publication of finished files. Datasets of many files
 * are written by the dataset module on top of this.
 */
package dev.riffle.format.write;

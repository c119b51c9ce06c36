/**
 * Datasets: immutable, versioned snapshots of many Riffle files, described by a manifest per
 * version (files with sizes and SHA-256, schema, provenance, splits, deletions), read as one space
 * of global row ids.
 */
package dev.riffle.dataset;

/**
 * Deterministic synthetic datasets, as Arrow batches: the kinds {@code riffle generate} writes
 * ({@link dev.riffle.datagen.ScalarsData}, {@link dev.riffle.datagen.VectorsData}, {@link
 * dev.riffle.datagen.SparseData}, {@link dev.riffle.datagen.CellsData}, {@link
 * dev.riffle.datagen.AtomsData}, {@link dev.riffle.datagen.Lance8Data}) and the benchmarks measure.
 * One implementation for both, so that a kind, a seed and a row count name the same rows wherever
 * they are written.
 *
 * <p>A {@link dev.riffle.datagen.SyntheticData} draws every value from one seeded generator, row
 * after row, so that the rows do not depend on how they are split into batches; {@link
 * dev.riffle.datagen.Batches} runs one. Transcendental functions go through {@link
 * java.lang.StrictMath} so that a seed gives the same values on every machine. Riffle files and
 * datasets are the callers' business, beyond the layout a kind asks of the writer (column groups);
 * the one file written here is the AnnData copy of a counts kind ({@link
 * dev.riffle.datagen.H5adWriter}), for measuring what converts such files.
 */
package dev.riffle.datagen;

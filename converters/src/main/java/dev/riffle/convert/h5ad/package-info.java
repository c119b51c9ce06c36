/**
 * AnnData ({@code .h5ad}) into Riffle datasets: {@link dev.riffle.convert.h5ad.H5adConverter}.
 *
 * <p>The HDF5 file is read with jhdf, slice by slice: rows of X (CSR, CSC or dense), of the obs
 * columns, of obsm matrices and of layers are read a batch at a time, and a CSC matrix is
 * transposed into row order through a temporary file in buckets of bounded size, so memory does not
 * grow with the matrix. The dataset's rows are the cells (rows of X); each sparse row is stored as
 * one column group of gene indices and values. var and raw.var become side tables next to the
 * dataset, uns becomes JSON metadata.
 */
package dev.riffle.convert.h5ad;

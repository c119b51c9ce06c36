/**
 * Training from Java with DJL: {@link dev.riffle.djl.RiffleDataset} (a DJL dataset over the
 * loader's batches, copied once into NDArrays), {@link dev.riffle.djl.RiffleRandomAccessDataset}
 * (the per-row form), {@link dev.riffle.djl.CheckpointListener} (loader state saved with the
 * parameters), {@link dev.riffle.djl.OfflineEngine} (PyTorch from the class path, never
 * downloaded), and the end-to-end {@link dev.riffle.djl.TrainCellTypes} with its benchmark.
 */
package dev.riffle.djl;

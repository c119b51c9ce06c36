/**
 * The out-of-core loader: {@link dev.riffle.loader.plan} decides which rows form each minibatch
 * (pure, seeded, resumable), {@link dev.riffle.loader.diversity} predicts and measures how diverse
 * those minibatches are, and {@link dev.riffle.loader.pipeline} reads them from a dataset with
 * bounded prefetch and hands them out as Arrow batches.
 */
package dev.riffle.loader;

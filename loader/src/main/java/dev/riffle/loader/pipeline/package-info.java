/**
 * The prefetching pipeline: {@link dev.riffle.loader.pipeline.Loader} turns an epoch plan into
 * Arrow minibatches. Each fetch (f consecutive batches of one rank) is read as one sorted,
 * de-duplicated take per data file — the format's coalesced read path — on a small pool of I/O
 * threads, then gathered into its batches in plan order with bulk buffer copies. Several fetches
 * are in flight, bounded in bytes; they complete in any order and are delivered in order. {@link
 * dev.riffle.loader.pipeline.FileOrder} lists the data files a rank reads next, in the order its
 * plan first reads them, for caches that evict what is needed furthest in the future. Also {@link
 * dev.riffle.loader.pipeline.SparseRows}, which gives training code CSR arrays or dense rows from
 * list columns.
 */
package dev.riffle.loader.pipeline;

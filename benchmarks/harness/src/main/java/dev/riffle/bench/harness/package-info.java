/**
 * The measurement harness that {@code dev.riffle.bench.Compare} and {@code
 * dev.riffle.bench.lance.LanceCompare} share, so that Riffle, Parquet, Arrow IPC and Lance are
 * timed by the very same code: random takes under the cold and warm protocols ({@link
 * TakeHarness}), one thread per handle, {@code /proc/self/io} deltas ({@link ProcIo}), the page
 * cache ({@link PageCache}), fio's limits ({@link Fio}) and the parts of the reports both write
 * ({@link Reports}, {@link Spread}).
 *
 * <p>It holds no Arrow: LanceCompare runs on the Arrow 15 that lance-core pins, the benchmarks
 * module on the project's Arrow 19, and a class compiled against one must not meet the other. So
 * these sources are not a jar either module depends on; {@code build-helper-maven-plugin} adds
 * {@code benchmarks/harness/src/main/java} to the sources of both builds (benchmarks/README.md).
 */
package dev.riffle.bench.harness;

/**
 * The {@code riffle} command line: a thin layer over {@code dev.riffle.format} and {@code
 * dev.riffle.dataset} for looking at files ({@code inspect}), reading rows by number ({@code take})
 * or in order ({@code scan}) as JSON lines, and writing deterministic synthetic datasets ({@code
 * generate}) for tests and benchmarks. The same commands read datasets (versioned sets of files in
 * a local directory or under an {@code s3a://} or other Hadoop URI, see {@link
 * dev.riffle.cli.Locations}), which {@code ls}, {@code info}, {@code validate}, {@code split} and
 * {@code gc} manage. {@code stage} copies a version into a local cache shared by processes; {@code
 * load} runs the minibatch loader, and over a staged view pins it for the run ({@link
 * dev.riffle.cli.StagedRun}).
 *
 * <p>Each subcommand is one picocli command class. They print only through the picocli {@code
 * CommandLine}'s writers, so that tests can run them in-process, and they throw instead of printing
 * errors: {@link dev.riffle.cli.ErrorHandler} turns every failure into one line on stderr and an
 * exit code (2 for bad arguments, 1 for data and I/O errors).
 */
package dev.riffle.cli;

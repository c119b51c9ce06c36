/**
 * The Riffle file format's vocabulary, below everything else in the module: the byte layout of each
 * on-disk structure ({@code *Layout} classes, each tied to its spec/FORMAT.md section), the
 * little-endian byte sink and the bounds-checked record input every codec uses, and the errors a
 * damaged or too-new file raises. Packages depend one way: {@code io} and this package at the
 * bottom, then {@code schema}, {@code encoding}, and {@code read} and {@code write} on top.
 */
package dev.riffle.format;

/**
 * Value encodings shared by the writer and the reader: sector pages, zipped pages, row records, and
 * the succinct indexes (Elias-Fano, bit packing) that locate a row without reading anything but its
 * bytes.
 */
package dev.riffle.format.encoding;

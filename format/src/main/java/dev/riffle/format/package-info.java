/**
 * The Riffle file format: its byte layout ({@code *Layout} classes, tied to spec/FORMAT.md), the
 * random-access {@link dev.riffle.format.FileReader}, take planning, scans and read counters.
 */
package dev.riffle.format;

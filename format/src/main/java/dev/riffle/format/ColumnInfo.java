package dev.riffle.format;

import java.util.List;
import java.util.Map;

/**
 * What {@code inspect} shows about a stored column.
 *
 * @param name the column (field or group) name
 * @param fields the top-level fields stored in it
 * @param pages number of pages
 * @param layouts number of pages per layout name
 * @param sectors number of 4 KiB sectors in SECTORS pages
 * @param dataBytes bytes of its pages
 * @param blockBytes bytes of its column block on disk
 * @param ramBytes bytes of search metadata it keeps in memory once loaded
 */
public record ColumnInfo(
    String name,
    List<String> fields,
    int pages,
    Map<String, Integer> layouts,
    long sectors,
    long dataBytes,
    long blockBytes,
    long ramBytes) {}

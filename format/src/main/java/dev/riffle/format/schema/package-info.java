/**
 * The file schema: Arrow fields, dictionary value types, the assignment of fields to stored columns
 * and column groups, the types Riffle accepts, and the schema's byte layout.
 */
package dev.riffle.format.schema;

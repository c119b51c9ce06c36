/**
 * Test helpers shared by the modules' tests (exported in the format test-jar): seeds, storage
 * wrappers.
 */
package dev.riffle.format.testing;

/**
 * Test helpers shared by the modules' tests (exported in the format test-jar): the seed extension,
 * random data, type cases.
 */
package dev.riffle.format.testing;

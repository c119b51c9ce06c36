/**
 * How diverse minibatches are: the exact model for disjoint fetch windows (π₂, effective batch
 * size, expected distinct blocks; research brief §3), the contract that turns a user's target into
 * a fetch factor or pool size checked against a memory budget, and the realised metrics of
 * delivered batches (π̂₂, distinct blocks, label entropy, total variation to the global label
 * distribution). Everything here works on row positions and block ids, never on data.
 */
package dev.riffle.loader.diversity;

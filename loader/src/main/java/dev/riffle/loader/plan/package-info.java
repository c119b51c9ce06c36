/**
 * Samplers as pure epoch planners. An epoch over a view of {@code n} rows is an {@link
 * dev.riffle.loader.plan.EpochOrder}: a bijection (or, for padding, a wrap-around) from epoch index
 * to view position that any index can be evaluated at in O(1) from counter-based randomness ({@link
 * dev.riffle.loader.plan.Mix}, {@link dev.riffle.loader.plan.Feistel}). Nothing is materialised, so
 * a plan can be resumed at any batch without replaying the ones before it, and every machine
 * computes the same global batches. {@link dev.riffle.loader.plan.EpochPlan} cuts the order into
 * global batches and rank slices; {@link dev.riffle.loader.plan.LoaderState} is the small resumable
 * position in it.
 */
package dev.riffle.loader.plan;

/**
 * Policies and the policy language: what is limited (an algorithm), for whom (a key resolver),
 * where (a match on method and path), who is exempt (an allow-list) and how a denial looks (its
 * status). Above {@code key}, below {@code http}: it may use every layer from {@code key} down, and
 * nothing about enforcement or responses.
 *
 * <h2>API (for users)</h2>
 * <ul>
 *   <li>{@link io.github.sluice.policy.Policy}: built with {@code Policy.builder(name)} or parsed
 *       from one line with {@code Policy.parse(text)}; both give equal objects;
 *   <li>{@link io.github.sluice.policy.Match}: path patterns and methods;
 *   <li>{@link io.github.sluice.policy.AllowList}: networks and keys that bypass a policy;
 *   <li>{@link io.github.sluice.policy.PolicyParser}: many lines at once, for loaders;
 *   <li>{@link io.github.sluice.policy.ConfigException} and {@link io.github.sluice.policy.Line}:
 *       every configuration error names its source, line, policy, parameter and value, and is
 *       raised at load time.
 * </ul>
 * The language's arguments, durations and algorithm names are parsed by package-private classes;
 * the grammar is in {@code docs/configuration.md}.
 *
 * <h2>SPI</h2>
 * None here: a policy's key comes from a {@link io.github.sluice.key.KeyResolver}, its algorithm
 * from {@link io.github.sluice.core.Algorithm}.
 *
 * <h2>Thread safety</h2>
 * Policies, matches, allow-lists and the parser are immutable and thread-safe; a {@code Line} is
 * not (one per line being read).
 */
package io.github.sluice.policy;

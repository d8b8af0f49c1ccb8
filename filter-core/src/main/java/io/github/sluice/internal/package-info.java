/**
 * Helpers of filter-core's implementation: argument checks whose messages name parameter, rule and
 * value, durations written in the user's units, "did you mean" suggestions, names of the
 * configuration language, and the token-bucket arithmetic shared by the registry algorithm and the
 * standalone limiter.
 *
 * <p><b>Not an API.</b> The module does not export this package, so modular users cannot see it;
 * on the class path its types are public only so that filter-core's other packages can share them.
 * They may change in any release. It is the bottom layer: it uses nothing else of Sluice, and no
 * other Sluice module uses it.
 *
 * <p>Every type is stateless and thread-safe.
 */
package io.github.sluice.internal;

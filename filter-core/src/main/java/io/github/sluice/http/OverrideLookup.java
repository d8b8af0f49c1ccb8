package io.github.sluice.http;

import java.util.function.Function;

/**
 * A lookup of per-customer contract limits, for policies with {@code override=bean:<name>}: given
 * a request's key, the key's limit as a plan's limit is written ({@code 5000/1m}, {@code unlimited},
 * {@code blocked}), or {@code null} if the key has none. Register it with
 * {@link Enforcer.Builder#overrideLookup}; the Spring Boot starter registers every bean of this type
 * under its bean name. It may be slow (a database): the enforcer caches its answers and bounds the
 * wait (docs/configuration.md, "Plans and per-customer limits").
 *
 * <p>Implementations must be thread-safe.
 */
@FunctionalInterface
public interface OverrideLookup extends Function<String, String> {
}

/**
 * The JAX-RS adapter: {@link io.github.sluice.jaxrs.SluiceFeature} installs Sluice's policies as
 * request and response filters, globally by path and per resource through
 * {@link io.github.sluice.jaxrs.RateLimited}. It translates the JAX-RS request and response and
 * nothing else: the decisions, headers and problem bodies come from {@code io.github.sluice.http}.
 * Depends on the JAX-RS 3.1 API only, not on an implementation. See {@code docs/jaxrs.md}.
 */
package io.github.sluice.jaxrs;

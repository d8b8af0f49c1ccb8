/**
 * The configuration language and the settings adapters load: {@link
 * io.github.sluice.policy.PolicyParser} for policy lines such as
 * {@code per-ip = token-bucket 100/1m burst=20 key=ip match=/api/*}, and {@link
 * io.github.sluice.config.SluiceConfig} for init-params and properties files. The grammar is
 * documented in {@code docs/configuration.md}. Every error is a {@link
 * io.github.sluice.policy.ConfigException} raised at load time. The top layer: it may use every
 * other, and nothing in filter-core uses it.
 *
 * <h2>API (for users and adapters)</h2>
 * <ul>
 *   <li>{@link io.github.sluice.config.SluiceConfig}: the settings of an enforcer, read from
 *       init-params or a properties file, or set in code.
 *   <li>{@link io.github.sluice.config.ConfigWatch}: applies edits of a watched properties file
 *       to a running enforcer ({@code Enforcer.reconfigure}) once a version is stable and
 *       complete, refusing versions with errors, empty or half-written files and files that lost
 *       every policy.
 * </ul>
 *
 * <h2>SPI</h2>
 * None.
 *
 * <h2>Thread safety</h2>
 * A configuration is immutable and thread-safe; a builder is not; a watch is thread-safe.
 */
package io.github.sluice.config;

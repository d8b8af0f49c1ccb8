/**
 * The configuration language and the settings adapters load: {@link
 * io.github.sluice.policy.PolicyParser} for policy lines such as
 * {@code per-ip = token-bucket 100/1m burst=20 key=ip match=/api/*}, and {@link
 * io.github.sluice.config.SluiceConfig} for init-params and properties files. The grammar is
 * documented in {@code docs/configuration.md}. Every error is a {@link
 * io.github.sluice.policy.ConfigException} raised at load time.
 */
package io.github.sluice.config;

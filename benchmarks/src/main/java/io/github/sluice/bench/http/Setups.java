package io.github.sluice.bench.http;

import io.github.sluice.bench.micro.Configs;
import io.github.sluice.http.Enforcer;
import io.github.sluice.http.HeaderOptions;
import io.github.sluice.http.HeaderStyle;
import io.github.sluice.key.KeyResolvers;
import io.github.sluice.policy.Policy;
import io.github.sluice.servlet.SluiceFilter;

/** The Sluice configuration of the HTTP comparison, the same in both containers. */
final class Setups {

    private Setups() {
    }

    /**
     * A Sluice filter with one policy: key = client IP, token bucket of a billion permits a second
     * (burst a billion), so nothing is ever denied; RateLimit headers on every response (the
     * default).
     *
     * @return a new filter
     */
    static SluiceFilter sluiceFilter() {
        Policy perIp = Policy.builder("per-ip").algorithm(Configs.OPEN.tokenBucket())
                .key(KeyResolvers.ip()).build();
        return new SluiceFilter(Enforcer.builder().policy(perIp).build());
    }

    /**
     * The filter of {@link #sluiceFilter()} with header style {@code none}: it decides, counts and
     * arranges the release, and adds no field, like the containers' own limiters.
     *
     * @return a new filter
     */
    static SluiceFilter sluiceFilterWithoutFields() {
        Policy perIp = Policy.builder("per-ip").algorithm(Configs.OPEN.tokenBucket())
                .key(KeyResolvers.ip()).build();
        return new SluiceFilter(Enforcer.builder().policy(perIp)
                .headers(HeaderOptions.DEFAULT.withStyle(HeaderStyle.NONE)).build());
    }

    /** A limit for the containers' own limiters that loopback load never reaches. */
    static final int HUGE = 1_000_000_000;
}

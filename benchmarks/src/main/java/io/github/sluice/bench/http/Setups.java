package io.github.sluice.bench.http;

import io.github.sluice.algorithm.Concurrency;
import io.github.sluice.algorithm.FixedWindow;
import io.github.sluice.algorithm.LeakyBucket;
import io.github.sluice.bench.micro.Configs;
import io.github.sluice.core.Algorithm;
import io.github.sluice.core.Rate;
import io.github.sluice.http.Enforcer;
import io.github.sluice.http.HeaderOptions;
import io.github.sluice.http.HeaderStyle;
import io.github.sluice.key.KeyResolver;
import io.github.sluice.key.KeyResolvers;
import io.github.sluice.policy.Policy;
import io.github.sluice.servlet.SluiceFilter;
import java.time.Duration;

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

    /** The concurrency limit of Jetty's {@code QoSHandler} and {@code QoSFilter} in the comparison. */
    static final int MAX_IN_FLIGHT = 100_000;

    /**
     * Sluice doing the job of one of the containers' own limiters, with their configuration and,
     * like them, no header field: the equal-work comparison.
     *
     * @param job {@code window}: a fixed window of {@link #HUGE} requests a minute per client IP,
     *     as Tomcat's {@code RateLimitFilter} ({@code bucketDuration=60}); {@code leaky}: a leaky
     *     bucket of {@link #HUGE} requests a second per client IP, holding as many, as Jetty's
     *     {@code DoSHandler} with its {@code LeakingBucketTrackerFactory}; {@code concurrency}: at
     *     most {@link #MAX_IN_FLIGHT} requests in flight on the whole server, as Jetty's
     *     {@code QoSHandler} and {@code QoSFilter}
     * @return a new filter
     * @throws IllegalArgumentException if {@code job} is none of these
     */
    static SluiceFilter equalWork(String job) {
        Algorithm<?> algorithm;
        KeyResolver key = KeyResolvers.ip();
        switch (job) {
            case "window" -> algorithm = FixedWindow.builder().limit(HUGE).window(Duration.ofMinutes(1)).build();
            case "leaky" -> algorithm = LeakyBucket.builder().rate(Rate.of(HUGE, Duration.ofSeconds(1))).capacity(HUGE)
                    .build();
            case "concurrency" -> {
                algorithm = Concurrency.of(MAX_IN_FLIGHT);
                key = KeyResolvers.global();
            }
            default -> throw new IllegalArgumentException("equal-work job must be window, leaky or concurrency but was "
                    + job);
        }
        Policy policy = Policy.builder(job).algorithm(algorithm).key(key).build();
        return new SluiceFilter(Enforcer.builder().policy(policy)
                .headers(HeaderOptions.DEFAULT.withStyle(HeaderStyle.NONE)).build());
    }
}

package io.github.sluice.store;

import io.github.sluice.algorithm.Concurrency;
import io.github.sluice.algorithm.FixedWindow;
import io.github.sluice.algorithm.Gcra;
import io.github.sluice.algorithm.SlidingWindow;
import io.github.sluice.algorithm.TokenBucket;
import io.github.sluice.core.Algorithm;
import io.github.sluice.core.Rate;
import io.github.sluice.testing.ConcurrencyModel;
import io.github.sluice.testing.FixedWindowModel;
import io.github.sluice.testing.GcraModel;
import io.github.sluice.testing.Model;
import io.github.sluice.testing.SlidingWindowModel;
import io.github.sluice.testing.TokenBucketModel;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;

/** One algorithm of each kind, with its reference model and natural time unit, for store tests. */
record Policies(String name, Algorithm<?> algorithm, Supplier<Model> model, long unitNanos) {

    @Override
    public String toString() {
        return name;
    }

    static List<Policies> all() {
        TokenBucket bucket = TokenBucket.builder().rate(Rate.perSecond(5)).burst(4).build();
        Gcra gcra = Gcra.builder().rate(Rate.perSecond(5)).burst(3).build();
        FixedWindow epoch = FixedWindow.of(6, Duration.ofSeconds(1));
        FixedWindow first = FixedWindow.builder().limit(6).window(Duration.ofSeconds(1))
                .alignment(FixedWindow.Alignment.FIRST_REQUEST).build();
        SlidingWindow sliding = SlidingWindow.builder().limit(6).window(Duration.ofSeconds(1)).slots(4).build();
        Concurrency concurrency = Concurrency.of(3);
        return List.of(
                new Policies("token-bucket", bucket,
                        () -> new TokenBucketModel(bucket.intervalNanos(), 4), bucket.intervalNanos()),
                new Policies("gcra", gcra,
                        () -> new GcraModel(gcra.emissionIntervalNanos(), 3), gcra.emissionIntervalNanos()),
                new Policies("fixed-window epoch", epoch,
                        () -> new FixedWindowModel(6, 1_000_000_000L, true, 0), 1_000_000_000L),
                new Policies("fixed-window first-request", first,
                        () -> new FixedWindowModel(6, 1_000_000_000L, false, 4), 1_000_000_000L),
                new Policies("sliding-window", sliding,
                        () -> new SlidingWindowModel(6, 250_000_000L, 4), 250_000_000L),
                new Policies("concurrency", concurrency,
                        () -> new ConcurrencyModel(3, Concurrency.RETRY_AFTER_MILLIS * 1_000_000L),
                        1_000_000_000L));
    }
}

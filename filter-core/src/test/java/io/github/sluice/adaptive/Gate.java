package io.github.sluice.adaptive;

import com.netflix.concurrency.limits.Limit;
import com.netflix.concurrency.limits.Limiter;
import com.netflix.concurrency.limits.limiter.SimpleLimiter;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.store.KeySpace;
import io.github.sluice.store.ShardedRegistry;
import io.github.sluice.testing.FakeClock;
import java.util.Optional;

/** A concurrency limiter under simulation: Sluice's through its registry, or Netflix's. */
interface Gate {

    /** @return a token to release, or {@code null} if refused */
    Object tryAcquire();

    /** Ends an admitted request. */
    void release(Object token, boolean dropped);

    /** @return the current limit */
    long limit();

    /** @return the name shown in reports */
    String name();

    /** Sluice's algorithm, through a {@link ShardedRegistry} on the simulation's clock, one global key. */
    static Gate sluice(String name, AdaptiveLimit<?> algorithm, FakeClock clock) {
        KeySpace space = ShardedRegistry.builder().clock(clock).build().keySpace("api", algorithm);
        MutableDecision out = new MutableDecision();
        MutableDecision peek = new MutableDecision();
        return new Gate() {
            @Override
            public Object tryAcquire() {
                return space.acquire("global", 1, out) ? (Object) out.receipt() : null;
            }

            @Override
            public void release(Object token, boolean dropped) {
                space.release("global", 1, (Long) token, dropped);
            }

            @Override
            public long limit() {
                space.acquire("global", 0, peek);
                return peek.limit();
            }

            @Override
            public String name() {
                return name;
            }
        };
    }

    /** No limit at all: the control. */
    static Gate unlimited(FakeClock clock) {
        return new Gate() {
            @Override
            public Object tryAcquire() {
                return Boolean.TRUE;
            }

            @Override
            public void release(Object token, boolean dropped) {
            }

            @Override
            public long limit() {
                return 0;
            }

            @Override
            public String name() {
                return "no limit";
            }
        };
    }

    /** Netflix's {@link SimpleLimiter} with the given limit, on the simulation's clock. */
    static Gate netflix(String name, Limit limit, FakeClock clock) {
        SimpleLimiter<Void> limiter = SimpleLimiter.newBuilder().limit(limit).nanoClock(clock::nanos)
                .named(name).build();
        return new Gate() {
            @Override
            public Object tryAcquire() {
                Optional<Limiter.Listener> listener = limiter.acquire(null);
                return listener.orElse(null);
            }

            @Override
            public void release(Object token, boolean dropped) {
                Limiter.Listener listener = (Limiter.Listener) token;
                if (dropped) {
                    listener.onDropped();
                } else {
                    listener.onSuccess();
                }
            }

            @Override
            public long limit() {
                return limiter.getLimit();
            }

            @Override
            public String name() {
                return name;
            }
        };
    }
}

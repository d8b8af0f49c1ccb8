package io.github.sluice.http;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.sluice.core.Algorithm;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.store.KeySpace;
import io.github.sluice.store.ShardedRegistry;
import io.github.sluice.store.Store;
import io.github.sluice.testing.FakeClock;
import io.github.sluice.testing.FakeRequest;
import io.github.sluice.testing.ForwardingKeySpace;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * What counting by outcome costs at the store, counted call by call: one acquire per request as
 * for any policy, exactly one refund per refunded request, and nothing at all for a request whose
 * reservation is kept or for a policy that charges every request (the JMH side of this, time and
 * allocation, is {@code io.github.sluice.bench.micro.OutcomeCounting}).
 */
class OutcomeCountingCostTest {

    /** A store that counts the calls its key spaces receive. */
    private static final class Counting implements Store {
        final ShardedRegistry target = ShardedRegistry.builder().clock(new FakeClock()).build();
        final AtomicInteger acquires = new AtomicInteger();
        final AtomicInteger refunds = new AtomicInteger();
        final AtomicInteger releases = new AtomicInteger();

        @Override
        public KeySpace keySpace(String name, Algorithm<?> algorithm) {
            return new ForwardingKeySpace(target.keySpace(name, algorithm)) {
                @Override
                public boolean acquire(String key, int partition, long cost, MutableDecision out) {
                    acquires.incrementAndGet();
                    return super.acquire(key, partition, cost, out);
                }

                @Override
                public void refund(String key, long cost, MutableDecision admission) {
                    refunds.incrementAndGet();
                    super.refund(key, cost, admission);
                }

                @Override
                public long release(String key, long cost, long receipt, boolean dropped) {
                    releases.incrementAndGet();
                    return super.release(key, cost, receipt, dropped);
                }
            };
        }
    }

    @ParameterizedTest
    @CsvSource({
        "'',        200, 0",
        "'',        401, 0",
        "count=401, 401, 0",
        "count=401, 200, 1",
        "skip=5xx,  200, 0",
        "skip=5xx,  503, 1",
    })
    void release_costsOneRefundPerRefundedRequest_andNothingOtherwise(String charge, int status, int refundsEach) {
        Counting store = new Counting();
        Enforcer e = Enforcer.builder().store(store).listener(EnforcementListener.NONE)
                .policies("login = fixed-window 1000/1m key=ip " + charge).build();
        FakeRequest r = FakeRequest.get("/login").peer("192.0.2.1");
        for (int i = 0; i < 100; i++) {
            Verdict v = e.enforce(r);
            v.release(status);
            v.release(status); // a second ending costs nothing
        }
        assertEquals(100, store.acquires.get());
        assertEquals(100 * refundsEach, store.refunds.get());
        assertEquals(0, store.releases.get(), "a rate policy has no permits to release");
    }
}

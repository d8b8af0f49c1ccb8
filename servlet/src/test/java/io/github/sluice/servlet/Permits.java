package io.github.sluice.servlet;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.sluice.core.Clock;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.http.Enforcer;
import io.github.sluice.policy.Policy;
import io.github.sluice.store.KeySpace;
import io.github.sluice.testing.ReleaseLedger;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/** Reads how many concurrency permits a key holds, from the store itself (a peek: cost 0). */
final class Permits {

    private Permits() {
    }

    /** @return the permits {@code key} of policy {@code name} holds right now */
    static long held(Enforcer enforcer, String name, String key) {
        Policy policy = enforcer.policies().stream().filter(p -> p.name().equals(name)).findFirst().orElseThrow();
        KeySpace space = enforcer.store().keySpace(name, policy.algorithm());
        MutableDecision peek = new MutableDecision();
        space.acquire(key, 0, peek);
        return peek.limit() - peek.remaining();
    }

    /**
     * Polls until the key holds {@code expected} permits: a real server releases on its own
     * threads after the client has its response (or has gone away), so the count settles a little
     * later. Fails with the last count after {@code within}. If the enforcer's store is a
     * {@link ReleaseLedger}, its count must say {@code expected} too, and no release may have
     * found nothing to give back: the store's own count is clamped at zero, so it cannot tell an
     * extra release from a correct one.
     */
    static void awaitHeld(Enforcer enforcer, String name, String key, long expected, Duration within) {
        if (enforcer.store() instanceof ReleaseLedger ledger) {
            ledger.awaitHeld(name, key, expected, within);
        }
        long deadline = Clock.system().nanos() + within.toNanos();
        long held = held(enforcer, name, key);
        while (held != expected && Clock.system().nanos() < deadline) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
            held = held(enforcer, name, key);
        }
        assertEquals(expected, held, "permits held by '" + key + "' of policy '" + name + "'");
    }
}

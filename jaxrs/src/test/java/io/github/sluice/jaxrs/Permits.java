package io.github.sluice.jaxrs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.sluice.core.Clock;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.http.Enforcer;
import io.github.sluice.policy.Policy;
import io.github.sluice.testing.ReleaseLedger;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/** Reads a key's state from the store itself: a peek (cost 0). */
final class Permits {

    private Permits() {
    }

    /** @return the permits {@code key} of policy {@code name} holds now */
    static long held(Enforcer enforcer, String name, String key) {
        MutableDecision peek = peek(enforcer, name, key);
        return peek.limit() - peek.remaining();
    }

    /** @return the quota {@code key} of policy {@code name} has left now */
    static long remaining(Enforcer enforcer, String name, String key) {
        return peek(enforcer, name, key).remaining();
    }

    private static MutableDecision peek(Enforcer enforcer, String name, String key) {
        Policy policy = enforcer.policies().stream().filter(p -> p.name().equals(name)).findFirst().orElseThrow();
        MutableDecision peek = new MutableDecision();
        enforcer.store().keySpace(name, policy.algorithm()).acquire(key, 0, peek);
        return peek;
    }

    /**
     * Polls until the key holds {@code expected} permits: the server releases on its own threads,
     * possibly after the client has its response, so the count settles a little later. If the
     * enforcer's store is a {@link ReleaseLedger}, its count (admissions minus releases, not
     * clamped at zero as the store's own) must say {@code expected} too, with no release that
     * found nothing to give back.
     */
    static void awaitHeld(Enforcer enforcer, String name, String key, long expected) {
        if (enforcer.store() instanceof ReleaseLedger ledger) {
            ledger.awaitHeld(name, key, expected, Duration.ofSeconds(10));
        }
        long deadline = Clock.system().nanos() + Duration.ofSeconds(10).toNanos();
        long held = held(enforcer, name, key);
        while (held != expected && Clock.system().nanos() < deadline) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
            held = held(enforcer, name, key);
        }
        assertEquals(expected, held, "permits held by '" + key + "' of policy '" + name + "'");
    }
}

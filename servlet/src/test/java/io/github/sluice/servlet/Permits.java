package io.github.sluice.servlet;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.sluice.core.Clock;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.http.Enforcer;
import io.github.sluice.policy.Policy;
import io.github.sluice.store.KeySpace;
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
     * later. Fails with the last count after {@code within}.
     */
    static void awaitHeld(Enforcer enforcer, String name, String key, long expected, Duration within) {
        long deadline = Clock.system().nanos() + within.toNanos();
        long held = held(enforcer, name, key);
        while (held != expected && Clock.system().nanos() < deadline) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
            held = held(enforcer, name, key);
        }
        assertEquals(expected, held, "permits held by '" + key + "' of policy '" + name + "'");
    }
}

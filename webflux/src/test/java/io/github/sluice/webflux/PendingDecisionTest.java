package io.github.sluice.webflux;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.http.Enforcer;
import io.github.sluice.http.Verdict;
import io.github.sluice.store.ShardedRegistry;
import io.github.sluice.testing.FakeRequest;
import io.github.sluice.testing.ReleaseLedger;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;

/**
 * A decision still pending when its subscriber goes away (a Redis round trip, a client that
 * closed the connection meanwhile): the verdict that arrives later holds permits nobody will end,
 * so it is ended as aborted at once.
 */
class PendingDecisionTest {

    private final ReleaseLedger ledger = ReleaseLedger.over(ShardedRegistry.builder().build());
    private final Enforcer enforcer = Enforcer.builder().store(ledger)
            .policies("held = concurrency 5 key=global").build();

    @AfterEach
    void close() {
        enforcer.close();
    }

    private Verdict holding() {
        Verdict v = enforcer.enforce(FakeRequest.get("/x"));
        assertFalse(v.released(), "the verdict holds a permit");
        return v;
    }

    @Test
    void settled_subscriberCancelsBeforeTheDecision_verdictIsEndedWhenItArrives() {
        CompletableFuture<Verdict> pending = new CompletableFuture<>();
        AtomicReference<Verdict> seen = new AtomicReference<>();
        Disposable subscription = ExchangeEnforcement.settled(pending).subscribe(seen::set);

        subscription.dispose();
        Verdict v = holding();
        pending.complete(v);

        assertTrue(v.released());
        assertEquals(null, seen.get());
        ledger.assertBalanced();
    }

    @Test
    void settled_decisionArrives_isHandedOnAndStillHeld() {
        CompletableFuture<Verdict> pending = new CompletableFuture<>();
        AtomicReference<Verdict> seen = new AtomicReference<>();
        ExchangeEnforcement.settled(pending).subscribe(seen::set);

        Verdict v = holding();
        pending.complete(v);

        assertSame(v, seen.get());
        assertFalse(v.released(), "the subscriber owns the verdict now");
        v.release();
        ledger.assertBalanced();
    }
}

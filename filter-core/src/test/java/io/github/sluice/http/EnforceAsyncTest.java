package io.github.sluice.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.core.MutableDecision;
import io.github.sluice.core.Outcome;
import io.github.sluice.store.Claim;
import io.github.sluice.store.Decided;
import io.github.sluice.store.KeySpace;
import io.github.sluice.store.ShardedRegistry;
import io.github.sluice.testing.FakeRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * {@link Enforcer#enforceAsync}: the same verdict as {@link Enforcer#enforce}, decided on the
 * calling thread when the store decides at once, and through the store's asynchronous methods when
 * it does not (a stand-in store whose decisions complete when the test says).
 */
class EnforceAsyncTest {

    private final EnforcerFixture f = new EnforcerFixture();
    private final FakeRequest request = FakeRequest.get("/api/x").peer("192.0.2.7");

    @Test
    void enforceAsync_inMemory_sameVerdictsAsEnforce_onTheCallingThread() {
        // Given two enforcers of the same policies, one decided synchronously, one asynchronously
        String[] policies = {"per-ip = token-bucket 3/1m key=ip", "slots = concurrency 2 key=ip",
            "trial = fixed-window 2/1m key=ip dry-run", "who = token-bucket 5/1m key=header:X-Who unresolved=deny"};
        Enforcer sync = f.enforcer(policies);
        Enforcer async = new EnforcerFixture().enforcer(policies);
        FakeRequest keyed = request.header("X-Who", "alice");
        Thread caller = Thread.currentThread();

        for (int i = 0; i < 5; i++) {
            // When each request is decided both ways
            Verdict expected = sync.enforce(keyed);
            AtomicReference<Thread> ranOn = new AtomicReference<>();
            CompletionStage<Verdict> stage = async.enforceAsync(keyed);
            Verdict actual = stage.thenApply(v -> {
                ranOn.set(Thread.currentThread());
                return v;
            }).toCompletableFuture().join();

            // Then the verdicts agree, entry by entry, and nothing left the calling thread
            assertSame(caller, ranOn.get(), "a thread hop");
            assertEquals(expected.toString(), actual.toString());
            assertEquals(expected.released(), actual.released());
        }
        // And a keyless request of the unresolved=deny policy is refused the same way
        Verdict expected = sync.enforce(request);
        Verdict actual = async.enforceAsync(request).toCompletableFuture().join();
        assertTrue(actual.denied());
        assertEquals(expected.toString(), actual.toString());
        assertEquals(expected.status(), actual.status());
    }

    @Test
    void enforceAsync_selection_sameAsEnforce() {
        Enforcer e = f.enforcer("a = token-bucket 1/1m key=ip", "b = fixed-window 5/1m key=ip");
        PolicySet both = e.select("a", "b");

        Verdict first = e.enforceAsync(request, both).toCompletableFuture().join();
        Verdict second = e.enforceAsync(request, both).toCompletableFuture().join();

        assertTrue(first.admitted());
        assertTrue(second.denied());
        // all or nothing: b's permit taken by the second request was given back
        assertEquals(4, second.decision(1).remaining());
    }

    @Test
    void decidesAtOnce_inMemoryStore_true_otherStore_false() {
        assertTrue(f.enforcer("a = token-bucket 1/1m key=ip").decidesAtOnce());
        Enforcer remote = Enforcer.builder().store(new LaterStore(f.registry)).listener(EnforcementListener.NONE)
                .policies("a = token-bucket 1/1m key=ip").build();
        assertFalse(remote.decidesAtOnce());
    }

    @Test
    void enforceAsync_storeDecidesLater_completesWhenItDoes_andConcludesOnce() {
        // Given a store whose decisions complete only when released, an enforced and a dry-run policy
        LaterStore store = new LaterStore(f.registry);
        RecordingListener listener = new RecordingListener();
        Enforcer e = Enforcer.builder().store(store).listener(listener).metrics(false)
                .policies("a = concurrency 1 key=ip\nb = token-bucket 5/1m key=ip dry-run").build();

        // When a request is decided
        CompletableFuture<Verdict> stage = e.enforceAsync(request).toCompletableFuture();

        // Then nothing is concluded before the store answers: first the enforced chain...
        assertFalse(stage.isDone());
        assertTrue(listener.events.isEmpty(), () -> "told before the decision: " + listener.events);
        store.completeAll();
        // ...then the dry-run entry, decided on its own
        assertFalse(stage.isDone());
        store.completeAll();
        Verdict v = stage.join();
        assertEquals(Outcome.ALLOWED, v.outcome());
        assertFalse(v.released(), "the concurrency permit is held");
        assertEquals(2, listener.events.size(), () -> "told: " + listener.events);
        v.releaseAborted();
        assertTrue(v.released());
        assertEquals(0, remainingInFlight(e), "the permit went back");
    }

    private long remainingInFlight(Enforcer e) {
        MutableDecision peek = new MutableDecision();
        f.registry.keySpace("a", e.policies().get(0).algorithm()).acquire("192.0.2.7", 0, peek);
        return peek.limit() - peek.remaining();
    }

    /**
     * A store over the in-memory registry whose asynchronous decisions complete only when the test
     * calls {@link #completeAll}: a remote store's replies, under the test's control.
     */
    private static final class LaterStore implements io.github.sluice.store.Store {
        private final ShardedRegistry registry;
        private final List<Runnable> pending = new ArrayList<>();

        LaterStore(ShardedRegistry registry) {
            this.registry = registry;
        }

        void completeAll() {
            List<Runnable> now = new ArrayList<>(pending);
            pending.clear();
            now.forEach(Runnable::run);
        }

        @Override
        public KeySpace keySpace(String name, io.github.sluice.core.Algorithm<?> algorithm) {
            KeySpace inner = registry.keySpace(name, algorithm);
            return new io.github.sluice.testing.ForwardingKeySpace(inner) {
                @Override
                public CompletionStage<Boolean> acquireAsync(String key, int partition, long cost, MutableDecision out) {
                    CompletableFuture<Boolean> later = new CompletableFuture<>();
                    pending.add(() -> later.complete(inner.acquire(key, partition, cost, out)));
                    return later;
                }
            };
        }

        @Override
        public CompletionStage<Boolean> acquireAllAsync(Claim claims) {
            CompletableFuture<Boolean> later = new CompletableFuture<>();
            pending.add(() -> later.complete(acquireAll(claims)));
            return later;
        }
    }

    @Test
    void enforceAsync_inMemoryMaxWait_pollsInsteadOfWaiting_andIsAdmittedOnRelease() {
        // Given a concurrency limit of one that waits for a permit, its permit held
        Enforcer e = f.enforcer("slots = concurrency 1 max-wait=10s key=ip", "rate = token-bucket 100/1s key=ip");
        assertFalse(e.decidesAtOnce(), "enforce() would wait on its thread");
        Verdict holder = e.enforce(request);
        assertTrue(holder.admitted());

        // When a second request is decided asynchronously
        CompletableFuture<Verdict> waiting = e.enforceAsync(request).toCompletableFuture();

        // Then it returns at once, undecided (the frozen clock never ends its wait)
        assertFalse(waiting.isDone());
        // And once the permit comes back, a poll admits it
        holder.release(200);
        Verdict admitted = waiting.orTimeout(10, java.util.concurrent.TimeUnit.SECONDS).join();
        assertTrue(admitted.admitted(), () -> "decided: " + admitted);
        admitted.release(200);
        assertEquals(0, remainingSlotsInFlight(e));
    }

    private long remainingSlotsInFlight(Enforcer e) {
        MutableDecision peek = new MutableDecision();
        f.registry.keySpace("slots", e.policies().get(0).algorithm()).acquire("192.0.2.7", 0, peek);
        return peek.limit() - peek.remaining();
    }

    @Test
    void decided_sharedStages_areRecognisedAndImmutable() {
        assertTrue(Decided.isDecided(Decided.of(true)));
        assertSame(Decided.ADMITTED, Decided.of(true));
        assertSame(Decided.REFUSED, Decided.of(false));
        assertFalse(Decided.isDecided(CompletableFuture.completedFuture(Boolean.TRUE)));
        // A caller cannot change the shared stage: it hands out copies
        Decided.ADMITTED.toCompletableFuture().obtrudeValue(Boolean.FALSE);
        assertEquals(Boolean.TRUE, Decided.ADMITTED.toCompletableFuture().join());
    }
}

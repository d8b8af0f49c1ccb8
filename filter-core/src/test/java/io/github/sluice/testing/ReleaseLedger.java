package io.github.sluice.testing;

import io.github.sluice.core.Algorithm;
import io.github.sluice.core.Clock;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.store.Inheritance;
import io.github.sluice.store.KeySpace;
import io.github.sluice.store.Store;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * A store wrapper that records, at the store, every admission, release and refund of every
 * concurrency policy's keys, counted as the calls arrive: the proof that each request gives its
 * permits back exactly once. The store's own count cannot be that proof: a concurrency limit clamps
 * at zero, so a second release of one request leaves it at zero as surely as a correct one does,
 * and a second release while other requests hold permits frees one of theirs unseen.
 *
 * <h2>What it checks</h2>
 * Per policy and key, the permits {@linkplain #held(String, String) held} are the permits admitted
 * minus those released and refunded, counted without a clamp. A release or refund that finds fewer
 * permits held than it gives back is recorded as a violation at that moment ({@link #violations()}).
 * {@link #assertBalanced()} fails if any violation was recorded or any key still holds permits;
 * {@link #awaitBalanced(Duration)} waits for the releases a real server makes on its own threads
 * after the client has its response. So an extra release fails a test as surely as a missing one.
 *
 * <p>Keys are the requests' keys. To account for each request separately, give the concurrency
 * policy a key that is unique per request (a request-id header): each key must then see one
 * admission and one release, and a second release is a violation the moment it happens; with a
 * global key, a second release is found by the count that never returns to zero.
 *
 * <p>Rate limits are passed through and not recorded: they hold nothing while a request runs.
 * Thread-safe; recording takes no lock.
 *
 * <p>The system property {@value #SETTLE_PROPERTY} (an ISO-8601 duration, e.g. {@code PT1S})
 * shortens every wait: the mutation runs of {@code docs/testing.md} set it, since a permit that is
 * never given back would otherwise make each test wait its whole allowance before failing.
 */
public final class ReleaseLedger implements Store {

    /** The system property that caps every wait, see the class description. */
    public static final String SETTLE_PROPERTY = "sluice.ledger.settle";

    /** At most this many violations are kept, so that a broken release path cannot fill the heap. */
    private static final int MAX_VIOLATIONS = 20;

    private final Store target;
    private final Map<String, Account> accounts = new ConcurrentHashMap<>();
    private final ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
    private final AtomicInteger violationCount = new AtomicInteger();

    private ReleaseLedger(Store target) {
        this.target = Objects.requireNonNull(target, "target");
    }

    /**
     * @param target the store that keeps the state
     * @return a ledger in front of {@code target}
     */
    public static ReleaseLedger over(Store target) {
        return new ReleaseLedger(target);
    }

    /** @return the store behind this ledger */
    public Store target() {
        return target;
    }

    @Override
    public KeySpace keySpace(String name, Algorithm<?> algorithm) {
        return wrap(target.keySpace(name, algorithm));
    }

    @Override
    public KeySpace rebind(KeySpace current, Algorithm<?> algorithm, Inheritance inheritance) {
        KeySpace inner = current instanceof Recording r ? r.inner : current;
        return wrap(target.rebind(inner, algorithm, inheritance));
    }

    private KeySpace wrap(KeySpace space) {
        return space.algorithm().concurrency() ? new Recording(space) : space;
    }

    @Override
    public void close() {
        target.close();
    }

    /**
     * @param policy the policy's name
     * @param key the key
     * @return the permits the key holds by this ledger's count: admitted minus released and
     *     refunded, without a clamp (negative after an extra release)
     */
    public long held(String policy, String key) {
        Account a = accounts.get(policy + '\u0000' + key);
        return a == null ? 0 : a.held.get();
    }

    /** @return the admissions recorded for the key */
    public long admitted(String policy, String key) {
        Account a = accounts.get(policy + '\u0000' + key);
        return a == null ? 0 : a.admitted.get();
    }

    /** @return the releases (not refunds) recorded for the key */
    public long released(String policy, String key) {
        Account a = accounts.get(policy + '\u0000' + key);
        return a == null ? 0 : a.released.get();
    }

    /** @return the admissions recorded, over every policy and key */
    public long admitted() {
        long n = 0;
        for (Account a : accounts.values()) {
            n += a.admitted.get();
        }
        return n;
    }

    /** @return the releases and refunds that found fewer permits than they gave back, in order (the first 20) */
    public List<String> violations() {
        return new ArrayList<>(violations);
    }

    /**
     * Fails unless every admission was given back exactly once: no violation, and no key holding
     * permits.
     *
     * @throws AssertionError naming the violations and the keys out of balance
     */
    public void assertBalanced() {
        String problem = imbalance();
        if (problem != null) {
            throw new AssertionError(problem);
        }
    }

    /**
     * Waits up to {@code within} for every admission to be given back, then fails as
     * {@link #assertBalanced()} does. A violation fails at once: waiting cannot undo it.
     *
     * @param within how long the server may take to release after the last response
     */
    public void awaitBalanced(Duration within) {
        long deadline = Clock.system().nanos() + capped(within).toNanos();
        String problem = imbalance();
        while (problem != null && violationCount.get() == 0 && Clock.system().nanos() < deadline) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
            problem = imbalance();
        }
        if (problem != null) {
            throw new AssertionError(problem);
        }
    }

    /**
     * Waits up to {@code within} until the key holds {@code expected} permits by this ledger's
     * count, then fails if it does not, or if a violation was recorded.
     *
     * @param policy the policy's name
     * @param key the key
     * @param expected the permits it should hold
     * @param within how long the server may take to release
     */
    public void awaitHeld(String policy, String key, long expected, Duration within) {
        long deadline = Clock.system().nanos() + capped(within).toNanos();
        while (held(policy, key) != expected && violationCount.get() == 0 && Clock.system().nanos() < deadline) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
        }
        long held = held(policy, key);
        if (held != expected || violationCount.get() != 0) {
            throw new AssertionError("permits held by '" + key + "' of policy '" + policy + "', counted at the store:"
                    + " expected " + expected + " but was " + held + " (" + accounts.get(policy + '\u0000' + key)
                    + "); violations: " + violations());
        }
    }

    /** @return {@code within}, or the {@value #SETTLE_PROPERTY} if that is set and shorter */
    private static Duration capped(Duration within) {
        String cap = System.getProperty(SETTLE_PROPERTY);
        if (cap == null || cap.isBlank()) {
            return within;
        }
        Duration d = Duration.parse(cap);
        return d.compareTo(within) < 0 ? d : within;
    }

    /** @return a description of what is out of balance, or {@code null} if nothing is */
    private String imbalance() {
        Map<String, String> open = new TreeMap<>();
        for (Map.Entry<String, Account> e : accounts.entrySet()) {
            if (e.getValue().held.get() != 0) {
                open.put(e.getKey().replace('\u0000', '/'), e.getValue().toString());
                if (open.size() == 10) {
                    break;
                }
            }
        }
        if (open.isEmpty() && violationCount.get() == 0) {
            return null;
        }
        return "permits not given back exactly once, counted at the store: " + violationCount.get()
                + " release(s) without a matching admission " + violations() + "; keys out of balance "
                + "(policy/key: admitted, released, refunded) " + open;
    }

    @Override
    public String toString() {
        return "ReleaseLedger{" + accounts.size() + " keys, " + violationCount.get() + " violations, " + target + '}';
    }

    /** One key's counts. */
    private static final class Account {
        final AtomicLong admitted = new AtomicLong();
        final AtomicLong released = new AtomicLong();
        final AtomicLong refunded = new AtomicLong();
        final AtomicLong held = new AtomicLong();

        @Override
        public String toString() {
            return admitted.get() + ", " + released.get() + ", " + refunded.get();
        }
    }

    private Account account(String policy, String key) {
        return accounts.computeIfAbsent(policy + '\u0000' + key, k -> new Account());
    }

    private void admit(String policy, String key, long cost) {
        Account a = account(policy, key);
        a.admitted.incrementAndGet();
        a.held.addAndGet(cost);
    }

    private void giveBack(String policy, String key, long cost, boolean refund) {
        Account a = account(policy, key);
        (refund ? a.refunded : a.released).incrementAndGet();
        long before = a.held.getAndAdd(-cost);
        if (before < cost) {
            violationCount.incrementAndGet();
            if (violations.size() < MAX_VIOLATIONS) {
                violations.add((refund ? "refund" : "release") + " of " + cost + " permit(s) of '" + key
                        + "' of policy '" + policy + "' holding " + before + " (" + a + ") on thread "
                        + Thread.currentThread().getName());
            }
        }
    }

    /** A concurrency policy's key space, recording each call that takes or gives back permits. */
    private final class Recording extends ForwardingKeySpace {

        Recording(KeySpace inner) {
            super(inner);
        }

        @Override
        public boolean acquire(String key, long cost, MutableDecision out) {
            boolean admitted = inner.acquire(key, cost, out);
            if (admitted && cost > 0) {
                admit(inner.name(), key, cost);
            }
            return admitted;
        }

        @Override
        public boolean acquire(String key, int partition, long cost, MutableDecision out) {
            boolean admitted = inner.acquire(key, partition, cost, out);
            if (admitted && cost > 0) {
                admit(inner.name(), key, cost);
            }
            return admitted;
        }

        @Override
        public void release(String key, long cost) {
            if (cost > 0) {
                giveBack(inner.name(), key, cost, false);
            }
            inner.release(key, cost);
        }

        @Override
        public long release(String key, long cost, long receipt, boolean dropped) {
            if (cost > 0) {
                giveBack(inner.name(), key, cost, false);
            }
            return inner.release(key, cost, receipt, dropped);
        }

        /*
         * The enforcer's release, to the cell kept at the admission: recorded, and passed on as it
         * came, so that the ledger's contracts run the store's kept-cell path and not a lookup.
         * (ForwardingKeySpace leaves this one to the default, which looks the key up through the
         * wrapper's own release, so that a wrapper overriding that release sees every release.)
         */
        @Override
        public long release(String key, io.github.sluice.core.Cell held, long cost, long receipt, boolean dropped) {
            if (cost > 0) {
                giveBack(inner.name(), key, cost, false);
            }
            return inner.release(key, held, cost, receipt, dropped);
        }

        @Override
        public void refund(String key, long cost, MutableDecision admission) {
            if (cost > 0 && admission.allowed()) {
                giveBack(inner.name(), key, cost, true);
            }
            inner.refund(key, cost, admission);
        }
    }
}

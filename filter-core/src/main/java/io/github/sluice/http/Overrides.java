package io.github.sluice.http;

import io.github.sluice.core.Clock;
import io.github.sluice.policy.Plans;
import io.github.sluice.policy.Policy;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.Iterator;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;

/**
 * The contract limits of one policy's keys ({@code override=}), looked up by the application's
 * lookup and cached.
 *
 * <h2>The rules</h2>
 * <ul>
 *   <li><b>Cached</b>, at most {@link Plans#overrideCache()} keys, each for
 *       {@link Plans#overrideTtl()} (on the enforcer's clock); a key beyond the bound takes the
 *       place of another. A key without a contract is cached too (the lookup returned
 *       {@code null}).
 *   <li><b>Single-flight</b>: one key is never looked up twice at once; requests for a key being
 *       looked up wait for that lookup.
 *   <li><b>Bounded wait</b>: a request waits at most {@link Plans#overrideTimeout()}, then is
 *       decided by its plan (or by the contract cached before, if the entry only expired); the
 *       lookup goes on and serves the next requests. Lookups run on the enforcer's lookup threads,
 *       never on the request's.
 *   <li><b>Failures</b> (the lookup throws, returns a limit that is not one, or cannot be
 *       started) decide by the plan as well, and are remembered for at most a second, so a failing
 *       database is asked once per key per second, not once per request.
 *   <li>Every request decided by its plan for want of an answer is counted
 *       ({@link PolicyMetrics#overrideFallbacks()}) and logged at WARNING at most once per
 *       {@value #LOG_INTERVAL_SECONDS} seconds per policy, with the count since the last line.
 * </ul>
 *
 * <p>The cached path reads the map and the entry's fields: no lock, no allocation, and no clock
 * reading of its own: the enforcer reads the clock once for the request, this cache checks the
 * expiry against that reading ({@link #fresh}), and the store decides the request at the same
 * reading ({@link io.github.sluice.store.Claim#nanos}). So an entry decides exactly the requests
 * decided before its expiry, and a request at or after it looks the key up again; such a request,
 * which may wait for the lookup, is decided at a reading the store takes after it. Thread-safe.
 */
final class Overrides {

    private static final Logger LOG = System.getLogger("io.github.sluice");
    static final long LOG_INTERVAL_SECONDS = 60;
    private static final long FAILURE_TTL_NANOS = 1_000_000_000L;

    private final PlanChoice choice;
    private final Enforcer enforcer;
    private final Policy policy;
    private final Function<String, String> lookup;
    private final Executor executor;
    private final Clock clock;
    private final int maxKeys;
    private final long ttlNanos;
    private final long timeoutNanos;
    private final ConcurrentHashMap<String, Slot> cache = new ConcurrentHashMap<>();
    /* Fallbacks since the last log line, and when it was written. */
    private final LongAdder unlogged = new LongAdder();
    private final AtomicLong loggedAt = new AtomicLong(Long.MIN_VALUE);

    Overrides(PlanChoice choice, Enforcer enforcer, Policy policy) {
        this.choice = choice;
        this.enforcer = enforcer;
        this.policy = policy;
        Plans plans = policy.plans();
        this.lookup = enforcer.overrideLookup(policy);
        this.executor = enforcer.lookupExecutor();
        this.clock = enforcer.overrideClock();
        this.maxKeys = plans.overrideCache();
        this.ttlNanos = saturate(plans.overrideTtl().toNanos());
        this.timeoutNanos = plans.overrideTimeout().toNanos();
        if (lookup instanceof FileOverrides file) {
            // Every limit of the file is checked at start-up, as the policy's own are.
            file.table().forEach((key, limit) -> {
                try {
                    choice.contract(limit);
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("override=" + plans.override() + ": key '" + key
                            + "' has a bad limit '" + limit + "': " + e.getMessage() + " (policy '" + policy.name()
                            + "')", e);
                }
            });
            // A changed file is applied only if every limit in it is one (FileOverrides.check).
            file.limitCheck(choice::contract);
        }
    }

    private static long saturate(long nanos) {
        return Math.max(1, nanos);
    }

    /**
     * @param key the request's key
     * @param now the reading of the enforcer's clock ({@link Enforcer#overrideClock()}) the
     *     request is decided at
     * @return the key's contract enforcement, or {@code null} for its plan (no contract, or no
     *     answer in time)
     */
    Enforcement find(String key, long now) {
        Slot s = cache.get(key);
        if (s != null && s.done && now - s.until < 0) {
            return answer(s, now);
        }
        return slow(key, s, now);
    }

    /**
     * The request path's first step: the key's answer if it is cached and still fresh at
     * {@code now}, without waiting for anything; else {@link #find} looks the key up.
     *
     * @param key the request's key
     * @param now the reading of the enforcer's clock the request is decided at
     * @return the key's fresh answer ({@link #answer} gives its enforcement), or {@code null}
     */
    Slot fresh(String key, long now) {
        Slot s = cache.get(key);
        return s != null && s.done && now - s.until < 0 ? s : null;
    }

    /**
     * @param s a fresh answer from {@link #fresh}
     * @param now the request's reading
     * @return its contract's enforcement, or {@code null} for the plan (no contract, or a
     *     remembered failure, which is counted as a fallback)
     */
    Enforcement answer(Slot s, long now) {
        return s.failure == null ? s.value : fallback(s.value, now);
    }

    private Enforcement slow(String key, Slot seen, long now) {
        Slot pending = seen;
        if (seen == null || (seen.done && now - seen.until >= 0)) {
            Slot fresh = new Slot(seen == null ? null : seen.value);
            boolean mine = seen == null ? cache.putIfAbsent(key, fresh) == null : cache.replace(key, seen, fresh);
            if (mine) {
                bound(key);
                start(key, fresh);
                pending = fresh;
            } else {
                pending = cache.get(key);
                if (pending == null) {
                    return fallback(null, now); // evicted at once: decide by the plan
                }
            }
        }
        if (pending.done) {
            return pending.failure == null ? pending.value : fallback(pending.value, now);
        }
        try {
            return timeoutNanos == 0 ? fallback(pending.stale, now)
                    : pending.future.get(timeoutNanos, TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            return fallback(pending.stale, now);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return fallback(pending.stale, now);
        } catch (ExecutionException e) {
            return fallback(pending.stale, now); // counted once more: this request too was decided without it
        }
    }

    /** Keeps the cache within its bound: a new key takes the place of another. */
    private void bound(String added) {
        if (cache.size() <= maxKeys) {
            return;
        }
        Iterator<String> it = cache.keySet().iterator();
        while (cache.size() > maxKeys && it.hasNext()) {
            String k = it.next();
            if (!k.equals(added)) {
                it.remove();
            }
        }
    }

    private void start(String key, Slot slot) {
        try {
            executor.execute(() -> run(key, slot));
        } catch (RejectedExecutionException e) {
            fail(key, slot, "the lookup threads are all busy");
        }
    }

    private void run(String key, Slot slot) {
        String limit;
        Enforcement value;
        try {
            limit = lookup.apply(key);
            value = limit == null ? null : choice.contract(limit.strip());
        } catch (RuntimeException e) {
            fail(key, slot, e.toString());
            return;
        }
        slot.complete(value, clock.nanos() + ttlNanos);
    }

    private void fail(String key, Slot slot, String why) {
        slot.failure = why;
        slot.value = slot.stale;
        slot.until = clock.nanos() + Math.min(ttlNanos, FAILURE_TTL_NANOS);
        slot.done = true;
        slot.future.completeExceptionally(new IllegalStateException(why));
    }

    /**
     * A request decided without its key's answer: counted, and logged at most once per interval
     * (of the clock reading {@code now} the request took).
     */
    private Enforcement fallback(Enforcement stale, long now) {
        if (stale != null) {
            return stale; // the contract cached before still holds while it is refreshed
        }
        EnforcerMetrics metrics = enforcer.metrics();
        metrics.counters(policy).recordOverrideFallback();
        unlogged.increment();
        long last = loggedAt.get();
        if ((last == Long.MIN_VALUE || now - last >= TimeUnit.SECONDS.toNanos(LOG_INTERVAL_SECONDS))
                && loggedAt.compareAndSet(last, now)) {
            long n = unlogged.sumThenReset();
            try {
                LOG.log(Level.WARNING, "policy ''{0}'': {1} request(s) decided by their plan because the override"
                        + " lookup did not answer within {2} ms or failed (counted in overrideFallbacks;"
                        + " logged at most once per {3} s)", policy.name(), n,
                        TimeUnit.NANOSECONDS.toMillis(timeoutNanos), LOG_INTERVAL_SECONDS);
            } catch (RuntimeException ignored) {
                // A logger must not break a decision.
            }
        }
        return null;
    }

    /** @return the keys cached (for tests) */
    int size() {
        return cache.size();
    }

    /**
     * One key's answer: pending until the lookup completes, then immutable in effect ({@link #done}
     * is written last, after the value and the expiry).
     */
    static final class Slot {
        final CompletableFuture<Enforcement> future = new CompletableFuture<>();
        /** The contract cached before this lookup, served while it runs and if it fails. */
        final Enforcement stale;
        Enforcement value;
        long until;
        String failure;
        volatile boolean done;

        Slot(Enforcement stale) {
            this.stale = stale;
        }

        void complete(Enforcement value, long until) {
            this.value = value;
            this.until = until;
            this.done = true;
            future.complete(value);
        }

        @Override
        public String toString() {
            return done ? (failure != null ? "failed: " + failure : String.valueOf(value)) : "pending";
        }
    }

    @Override
    public String toString() {
        return "Overrides{" + policy.name() + ", keys=" + cache.size() + '}';
    }
}

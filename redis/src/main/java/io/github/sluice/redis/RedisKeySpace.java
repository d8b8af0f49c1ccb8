package io.github.sluice.redis;

import io.github.sluice.core.Algorithm;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.redis.internal.Binding;
import io.github.sluice.redis.internal.DenialCache;
import io.github.sluice.redis.internal.KeyNames;
import io.github.sluice.redis.internal.LeaseBook;
import io.github.sluice.redis.internal.Part;
import io.github.sluice.store.KeySpace;
import java.lang.System.Logger.Level;
import java.util.Objects;

/**
 * One policy in a {@link RedisStore}: decisions by the shared script, a local denial cache, the
 * failure policy's path, and (for a concurrency limit) the book of leases this instance holds.
 *
 * <p>Thread-safe. No method throws because Redis failed; see {@link RedisStore}.
 */
final class RedisKeySpace implements KeySpace {

    final Engine engine;
    final String name;
    final Binding binding;
    /** {@code <prefix>:<policy>:}, the bytes every key of this policy starts with. */
    final KeyNames.Head head;
    final long limit;
    /** Denials cached until their retry-after, or {@code null} when off or for concurrency. */
    final DenialCache cache;
    /** The in-memory key space used while Redis is down, or {@code null}. */
    final KeySpace fallback;
    /** Leases this instance holds, for a concurrency limit; else {@code null}. */
    final LeaseBook leases;
    /** The policy's lease mode ({@link RedisStore.Builder#leases}), or {@code null} when it does not lease. */
    final Leasing lease;

    RedisKeySpace(Engine engine, String name, Binding binding, String fallbackName) {
        this.engine = engine;
        this.name = name;
        this.binding = binding;
        this.head = engine.keys.head(name);
        this.limit = binding.algorithm().limit();
        this.cache = engine.denialCacheSize > 0 && binding.cacheDenials()
                ? new DenialCache(engine.denialCacheSize) : null;
        this.fallback = engine.fallback == null ? null
                : engine.fallback.keySpace(fallbackName, binding.scaled(engine.failure.instances()));
        this.leases = binding.concurrency() ? new LeaseBook() : null;
        this.lease = Leasing.of(engine, this);
        if (lease != null) {
            engine.leasings.add(lease);
        }
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Algorithm<?> algorithm() {
        return binding.algorithm();
    }

    /**
     * {@inheritDoc}
     *
     * <p>One round trip to Redis, bounded by the store's command timeout, unless a cached denial
     * answers or the circuit breaker is open; then the store's failure policy decides and the
     * decision is marked {@link MutableDecision#degraded() degraded}.
     *
     * @throws NullPointerException if {@code key} or {@code out} is null
     * @throws IllegalArgumentException if {@code cost < 0}
     */
    @Override
    public boolean acquire(String key, long cost, MutableDecision out) {
        if (lease != null && lease.applies(cost)) {
            return lease.acquire(Objects.requireNonNull(key, "key"), cost, Objects.requireNonNull(out, "out"));
        }
        return Acquisition.run(engine, new Acquisition.Member[] {
            new Acquisition.Member(this, key, cost, out)}) < 0;
    }

    /**
     * {@inheritDoc}
     *
     * <p>The same decision as {@link #acquire(String, long, MutableDecision)}, through the
     * client's asynchronous API: the reply completes the stage on the client's I/O thread, the
     * command timeout on the store's timer thread, and a cached denial or an open breaker on the
     * calling thread ({@link io.github.sluice.store.Decided}). The partition is ignored, as on
     * the synchronous path (adaptive policies stay in the enforcer's local registry).
     *
     * @throws NullPointerException if {@code key} or {@code out} is null
     * @throws IllegalArgumentException if {@code cost < 0}
     */
    @Override
    public java.util.concurrent.CompletionStage<Boolean> acquireAsync(String key, int partition, long cost,
            MutableDecision out) {
        if (lease != null && lease.applies(cost)) {
            return lease.acquireAsync(Objects.requireNonNull(key, "key"), cost, Objects.requireNonNull(out, "out"));
        }
        return AsyncAcquisition.run(engine, new Acquisition.Member[] {new Acquisition.Member(this, key, cost, out)});
    }

    /**
     * {@inheritDoc}
     *
     * <p>Never waits: the release is sent and not awaited. If it is lost (Redis down), a
     * concurrency lease expires after the lease timeout. A rate limit holds nothing while a
     * request runs: nothing is sent.
     *
     * @throws NullPointerException if {@code key} is null
     * @throws IllegalArgumentException if {@code cost < 0}
     */
    @Override
    public void release(String key, long cost) {
        releaseLeases(key, cost);
    }

    /**
     * {@inheritDoc}
     *
     * <p>As {@link #release(String, long)}; the permits that no lease of this instance held for
     * the key are returned: a lease is taken from this instance's book, so a release without one
     * (a second release of one admission) is found here, before anything is sent.
     *
     * @throws NullPointerException if {@code key} is null
     * @throws IllegalArgumentException if {@code cost < 0}
     */
    @Override
    public long release(String key, long cost, long receipt, boolean dropped) {
        return releaseLeases(key, cost);
    }

    /** Gives back the leases of {@code cost} permits; returns the permits no lease matched. */
    private long releaseLeases(String key, long cost) {
        Objects.requireNonNull(key, "key");
        Acquisition.checkCost(cost);
        if (cost == 0 || leases == null) {
            return 0;
        }
        long matched = 0;
        try {
            for (LeaseBook.Lease l : leases.pop(key, cost)) {
                matched += l.count();
                giveBack(key, l);
            }
        } catch (RuntimeException e) {
            engine.log.log(Level.WARNING, "sluice-redis: release failed", e);
            return 0; // not known to be unmatched
        }
        return cost - matched;
    }

    /**
     * {@inheritDoc}
     *
     * <p>An admission decided by Redis is refunded by the script, with the receipt the script
     * returned; one decided by the local fallback (Redis was down) is refunded there; one a
     * fail-open store let through took nothing. Never waits: the refund is sent and not awaited,
     * and if it is lost (Redis down) the key keeps the permits, which is stricter. For a
     * concurrency limit this releases the admission's lease. A denial of the key cached by this
     * instance is forgotten; other instances keep theirs until its retry-after.
     *
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code cost < 0}
     */
    @Override
    public void refund(String key, long cost, MutableDecision admission) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(admission, "admission");
        Acquisition.checkCost(cost);
        if (cost == 0 || !admission.allowed()) {
            return;
        }
        if (leases != null) {
            release(key, cost);
            return;
        }
        if (lease != null && io.github.sluice.redis.internal.ShareSlot.local(admission.receipt())) {
            // Decided from this instance's share: the permits go back to it (see Leasing#giveBack).
            lease.giveBack(key, cost, admission.receipt());
            return;
        }
        try {
            if (admission.degraded()) {
                if (fallback != null) {
                    fallback.refund(key, cost, admission);
                }
            } else {
                refund(key, null, 0, cost, admission.receipt());
            }
            if (cache != null) {
                // The key may pass again (a reservation of a policy that counts by outcome came
                // back): this instance no longer answers it from a denial cached meanwhile.
                cache.forget(key);
            }
        } catch (RuntimeException e) {
            engine.log.log(Level.WARNING, "sluice-redis: refund failed", e);
        }
    }

    void giveBack(String key, LeaseBook.Lease l) {
        switch (l.where()) {
            case REDIS -> refund(key, l.id(), l.first(), l.count(), MutableDecision.NO_RECEIPT);
            case LOCAL -> fallback.release(key, l.count());
            case NONE -> { }
        }
    }

    /**
     * Sends a release of {@code cost} permits without waiting: a refund carrying the receipt the
     * script returned for the admission, or the release of a concurrency lease.
     */
    void refund(String key, String leaseId, long first, long cost, long receipt) {
        Part p = new Part(binding, head, cost);
        p.key = key;
        p.id = leaseId;
        p.first = first;
        p.receipt = receipt;
        long now = engine.localClock.nanos();
        p.at = now;
        engine.fireAndForget('r', engine.nowArg(now), new Part[] {p}, 0);
    }

    /**
     * Decides by the failure policy, Redis being unavailable. Marks the decision degraded.
     *
     * @return {@code true} if admitted
     */
    boolean degraded(String key, long cost, MutableDecision out) {
        return degraded(key, cost, out, true);
    }

    /**
     * As {@link #degraded(String, long, MutableDecision)}; {@code wait}: whether the local
     * fallback may wait on this thread for a concurrency permit ({@code maxWait}). The
     * asynchronous path never does: its fallback answers at once.
     */
    boolean degraded(String key, long cost, MutableDecision out, boolean wait) {
        FailurePolicy f = engine.failure;
        boolean admitted;
        switch (f.mode()) {
            case FAIL_OPEN -> {
                out.allow(limit, Math.max(0, limit - cost), 0);
                admitted = true;
            }
            case FAIL_CLOSED -> {
                out.deny(limit, 0, Engine.FAIL_CLOSED_RETRY_NANOS, Engine.FAIL_CLOSED_RETRY_NANOS);
                admitted = false;
            }
            default -> admitted = wait ? fallback.acquire(key, cost, out)
                    : fallback.acquireNoWait(key, io.github.sluice.core.Algorithm.NO_PARTITION, cost, out);
        }
        out.degrade(f.status());
        return admitted;
    }

    /** @return where a lease granted by {@link #degraded} is held */
    LeaseBook.Where degradedWhere() {
        return fallback != null ? LeaseBook.Where.LOCAL : LeaseBook.Where.NONE;
    }

    /**
     * {@inheritDoc}
     *
     * <p>Deletes the policy's Redis key for this client key (one {@code DEL} on the key's slot,
     * awaited up to the command timeout), the key's state in the local fallback registry, and this
     * instance's cached denials of the policy and, in lease mode, its share of the key (dropped),
     * so that the next request here asks Redis. Other instances may answer from a cached denial
     * until its retry-after, or spend the share they hold. A concurrency limit is not reset: its
     * Redis key holds the leases of running requests.
     *
     * @throws NullPointerException if {@code key} is null
     * @throws IllegalStateException if Redis fails or does not answer in time
     */
    @Override
    public boolean reset(String key) {
        Objects.requireNonNull(key, "key");
        if (leases != null) {
            return false;
        }
        boolean had;
        try {
            Long deleted = engine.await(engine.connector.async().del(engine.keys.key(name, key)).toCompletableFuture(),
                    engine.realClock.nanos() + engine.timeoutNanos);
            had = deleted != null && deleted > 0;
        } catch (java.util.concurrent.TimeoutException | java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException("sluice-redis: could not reset a key of policy '" + name + "': " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("sluice-redis: interrupted while resetting a key of policy '" + name + "'", e);
        } finally {
            invalidate();
            if (lease != null) {
                lease.drop(key);
            }
        }
        if (fallback != null) {
            had |= fallback.reset(key);
        }
        return had;
    }

    /** Forgets cached denials: the policy was rebound to another algorithm, or a key was reset. */
    void invalidate() {
        if (cache != null) {
            cache.clear();
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>Redis does not count keys cheaply across instances; this is the number of keys this
     * instance holds locally: concurrency leases and the fallback registry's keys.
     */
    @Override
    public long size() {
        return (leases == null ? 0 : leases.keys()) + (fallback == null ? 0 : fallback.size());
    }

    @Override
    public String toString() {
        return "RedisKeySpace{" + name + ", " + binding.algorithm() + '}';
    }
}

package io.github.sluice.redis;

import io.github.sluice.core.Algorithm;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.redis.internal.AsIsChange;
import io.github.sluice.redis.internal.Bindings;
import io.github.sluice.store.Claim;
import io.github.sluice.store.KeySpace;
import io.github.sluice.store.PlanAlgorithm;
import java.util.Arrays;
import java.util.Objects;

/**
 * A policy with plans in a {@link RedisStore}: every plan (and contract limit) of the policy reads
 * and writes the <em>same</em> Redis key of a client, with the plan's parameters passed to the
 * script. A client whose plan changes therefore keeps its one state, read as it is under the new
 * parameters, exactly as a changed policy is ({@link RedisStore#rebind}); so the plans of a policy
 * must differ only as such a change may ({@link AsIsChange}: e.g. fixed windows of the same length
 * with different limits, token buckets whose buckets fill in the same time), and a plan table whose
 * differences it would refuse is refused when the policy is bound. Keys of another policy never
 * share state with these: the policy's name is in every key.
 *
 * <p>Concurrency limits with plans are refused on Redis: a lease is given back through the plan
 * that took it, which a release cannot name.
 *
 * <p>While Redis is down, each plan decides in its own in-memory fallback.
 *
 * <p>Thread-safe.
 */
final class RedisPlanKeySpace implements KeySpace {

    private final RedisStore store;
    private final Engine engine;
    private final String name;
    private final PlanAlgorithm algorithm;
    /* One key space per limit index, all on the policy's keys; grown (copy on write) for contracts. */
    private volatile RedisKeySpace[] byLimit;

    RedisPlanKeySpace(RedisStore store, Engine engine, String name, PlanAlgorithm algorithm) {
        this.store = store;
        this.engine = engine;
        this.name = name;
        this.algorithm = algorithm;
        if (algorithm.concurrency()) {
            throw new IllegalArgumentException("policy '" + name + "': the Redis store does not hold plans of a"
                    + " concurrency limit (a lease goes back through the plan that took it, which a release cannot"
                    + " name); keep it in memory, or give each plan a policy of its own");
        }
        for (Algorithm<?> a : algorithm.plans()) {
            for (Algorithm<?> b : algorithm.plans()) {
                String why = a.equals(b) ? null : AsIsChange.unsafe(a, b);
                if (why != null) {
                    throw new IllegalArgumentException("policy '" + name + "': its plans share each client's state in"
                            + " Redis, read under the plan's parameters, and " + a + " and " + b + " differ in " + why
                            + "; give the plans limits that differ only as docs/redis.md, \"Plans\", allows (e.g. the"
                            + " same window, or the same time to fill a bucket)");
                }
            }
        }
        algorithm.refuseLimitsBy((a, b) -> a.equals(b) ? null : AsIsChange.unsafe(a, b));
        RedisKeySpace[] spaces = new RedisKeySpace[algorithm.size()];
        for (int i = 0; i < spaces.length; i++) {
            spaces[i] = space(i);
        }
        this.byLimit = spaces;
    }

    private RedisKeySpace space(int index) {
        Algorithm<?> a = algorithm.limitAt(index);
        return new RedisKeySpace(engine, name, Bindings.of(a, engine.leaseMicros), store.planFallbackName(name, index));
    }

    /** The key space of a limit index; a contract added since is bound on its first request. */
    private RedisKeySpace at(int partition) {
        int index = partition < 0 || partition >= algorithm.size() ? algorithm.defaultPlan() : partition;
        RedisKeySpace[] spaces = byLimit;
        if (index < spaces.length) {
            return spaces[index];
        }
        synchronized (this) {
            spaces = byLimit;
            if (index >= spaces.length) {
                RedisKeySpace[] grown = Arrays.copyOf(spaces, algorithm.size());
                for (int i = spaces.length; i < grown.length; i++) {
                    grown[i] = space(i);
                }
                byLimit = grown;
                spaces = grown;
            }
            return spaces[index];
        }
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Algorithm<?> algorithm() {
        return algorithm;
    }

    @Override
    public boolean acquire(String key, long cost, MutableDecision out) {
        return at(Algorithm.NO_PARTITION).acquire(key, cost, out);
    }

    @Override
    public boolean acquire(String key, int partition, long cost, MutableDecision out) {
        return at(partition).acquire(key, cost, out);
    }

    /** A rate limit holds nothing while a request runs: nothing to give back. */
    @Override
    public void release(String key, long cost) {
        // plans of a concurrency limit are refused on Redis
    }

    /**
     * {@inheritDoc}
     *
     * <p>Given back through the plan the admission was decided under: the enforcer's admission is
     * its {@link Claim}, which names it.
     */
    @Override
    public void refund(String key, long cost, MutableDecision admission) {
        Objects.requireNonNull(admission, "admission");
        int plan = admission instanceof Claim c ? c.partition() : Algorithm.NO_PARTITION;
        at(plan).refund(key, cost, admission);
    }

    @Override
    public void inspect(String key, MutableDecision out) {
        at(Algorithm.NO_PARTITION).inspect(key, out);
    }

    /** Forgets the key's one state, and every plan's cached denials of it. */
    @Override
    public boolean reset(String key) {
        boolean had = at(Algorithm.NO_PARTITION).reset(key);
        for (RedisKeySpace s : byLimit) {
            s.invalidate();
        }
        return had;
    }

    @Override
    public long size() {
        long n = 0;
        for (RedisKeySpace s : byLimit) {
            n += s.size();
        }
        return n;
    }

    @Override
    public String toString() {
        return "RedisPlanKeySpace{" + name + ", " + algorithm + '}';
    }
}

package io.github.sluice.testing;

import io.github.sluice.core.Algorithm;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.store.KeySpace;
import java.util.Objects;

/**
 * A key space that forwards every call, defaults included, to another: the base of the tests'
 * wrappers that record or distort some calls ({@link ReleaseLedger}, a store that releases
 * twice), so that every call they do not mean to change reaches the real key space as it is.
 */
public class ForwardingKeySpace implements KeySpace {

    /** The key space every call goes to. */
    protected final KeySpace inner;

    /** @param inner the key space every call goes to */
    public ForwardingKeySpace(KeySpace inner) {
        this.inner = Objects.requireNonNull(inner, "inner");
    }

    @Override
    public String name() {
        return inner.name();
    }

    @Override
    public Algorithm<?> algorithm() {
        return inner.algorithm();
    }

    @Override
    public boolean acquire(String key, long cost, MutableDecision out) {
        return inner.acquire(key, cost, out);
    }

    @Override
    public boolean acquire(String key, int partition, long cost, MutableDecision out) {
        return inner.acquire(key, partition, cost, out);
    }

    @Override
    public void release(String key, long cost) {
        inner.release(key, cost);
    }

    @Override
    public long release(String key, long cost, long receipt, boolean dropped) {
        return inner.release(key, cost, receipt, dropped);
    }

    @Override
    public void refund(String key, long cost, MutableDecision admission) {
        inner.refund(key, cost, admission);
    }

    @Override
    public void inspect(String key, MutableDecision out) {
        inner.inspect(key, out);
    }

    @Override
    public boolean reset(String key) {
        return inner.reset(key);
    }

    @Override
    public long size() {
        return inner.size();
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + '{' + inner + '}';
    }
}

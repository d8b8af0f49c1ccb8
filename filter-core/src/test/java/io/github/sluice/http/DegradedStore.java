package io.github.sluice.http;

import io.github.sluice.core.Algorithm;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.store.KeySpace;
import io.github.sluice.store.Store;

/** A store whose key spaces answer from a real one but mark every decision degraded, as a store that is down does. */
final class DegradedStore implements Store {

    private final Store real;
    private final int denialStatus;

    DegradedStore(Store real, int denialStatus) {
        this.real = real;
        this.denialStatus = denialStatus;
    }

    @Override
    public KeySpace keySpace(String name, Algorithm<?> algorithm) {
        KeySpace space = real.keySpace(name, algorithm);
        return new KeySpace() {
            @Override
            public String name() {
                return space.name();
            }

            @Override
            public Algorithm<?> algorithm() {
                return space.algorithm();
            }

            @Override
            public boolean acquire(String key, long cost, MutableDecision out) {
                boolean ok = space.acquire(key, cost, out);
                out.degrade(denialStatus);
                return ok;
            }

            @Override
            public void release(String key, long cost) {
                space.release(key, cost);
            }

            @Override
            public void refund(String key, long cost, MutableDecision admission) {
                space.refund(key, cost, admission);
            }

            @Override
            public long size() {
                return space.size();
            }
        };
    }
}

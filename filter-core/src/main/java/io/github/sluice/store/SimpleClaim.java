package io.github.sluice.store;

import io.github.sluice.core.MutableDecision;
import java.util.Objects;

/** The claim of {@link Claim#of}: immutable apart from the decision it holds. */
record SimpleClaim(KeySpace space, String key, long cost, MutableDecision decision, Claim next)
        implements Claim {

    SimpleClaim {
        Objects.requireNonNull(space, "space");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(decision, "decision");
        if (cost < 0) {
            throw new IllegalArgumentException("cost must be >= 0 but was " + cost
                    + " (key space '" + space.name() + "')");
        }
    }
}

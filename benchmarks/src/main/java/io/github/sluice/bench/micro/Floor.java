package io.github.sluice.bench.micro;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The cheapest thing a rate limiter could do: read the clock once and compare-and-set one word.
 * Every single-key result is quoted as a ratio to this.
 */
final class Floor {

    private final AtomicLong word = new AtomicLong();

    /**
     * One clock read plus one CAS on a shared word.
     *
     * @return whether the CAS won (under contention it may lose; the cost is what counts)
     */
    boolean tick() {
        long now = System.nanoTime();
        return word.compareAndSet(word.get(), now);
    }
}

package io.github.sluice.adaptive;

import io.github.sluice.internal.Checks;
import io.github.sluice.internal.Units;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.Objects;

/**
 * Additive increase, multiplicative decrease, a loss-based rule like Netflix
 * concurrency-limits' {@code AIMDLimit} and TCP's congestion window: while a batch holds no
 * drop and every request in it ended within {@code latency}, the limit grows by one, as long as
 * the key uses at least half of it (an idle limit proves nothing); when a batch holds a drop
 * or a request slower than {@code latency}, the limit is multiplied by
 * {@code min(backoff, 1 - f / 2)}, where {@code f} is the share of the batch's requests slower
 * than {@code latency}: as DCTCP (RFC 8257) cuts its window by half the share of packets marked
 * by a queue. A batch with a few slow requests shows a limit near what the server carries and is
 * cut by {@code backoff}; a batch entirely over {@code latency} shows one far above it (capacity
 * fell) and is halved at once. A drop (an error, a timeout) tells of overload, not of how much:
 * {@code backoff}, however many of the batch were dropped.
 *
 * <p>Once per batch, either way, not once per request: a batch holds only requests admitted
 * since the limit last changed, so it lasts at least a round trip, and the rule moves like TCP's
 * window, by one per round trip up and at most one cut per round trip down. Netflix's grows by
 * one per request and cuts once per slow request; in the simulation (docs/adaptive.md) that
 * overshoots then starves (68 % goodput at overload); this holds latency near
 * {@code latency} with the server busy, and absorbs a halving of capacity in a few round trips
 * (with the backoff alone, 0.9 per round trip, it took about seven, each as slow as the queue
 * it left standing). Use it when overload shows as failures or timeouts rather than as a
 * gradual rise in latency, or with a {@code latency} threshold from the service's objectives.
 *
 * <p>Immutable and thread-safe.
 */
public final class Aimd extends AdaptiveLimit<AdaptiveCell> {

    /** The default backoff: 0.9. */
    public static final double DEFAULT_BACKOFF = 0.9;
    /** The default latency beyond which a request counts as dropped: five seconds. */
    public static final Duration DEFAULT_LATENCY = Duration.ofSeconds(5);

    /**
     * A key's state under {@link Aimd}: an {@link AdaptiveCell} plus the count of the current
     * batch's requests slower than {@code latency}. Thread-safe.
     */
    static final class AimdCell extends AdaptiveCell {
        private static final VarHandle SLOW;

        static {
            try {
                SLOW = MethodHandles.lookup().findVarHandle(AimdCell.class, "slow", long.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        /** Requests of the current batch slower than {@code latency}, added before their sample. */
        private volatile long slow;

        AimdCell(long word, long origin, int partitions) {
            super(word, origin, partitions);
        }

        void addSlow() {
            SLOW.getAndAdd(this, 1L);
        }

        long takeSlow() {
            return (long) SLOW.getAndSet(this, 0L);
        }
    }

    private final double backoff;
    private final long latency;

    private Aimd(Builder b) {
        super(b);
        this.backoff = b.backoff;
        this.latency = b.latency;
    }

    /** @return a builder with the defaults documented on its setters */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Shorthand for {@code builder().min(min).max(max).initial(initial).latency(latency).build()}.
     *
     * @param min the smallest limit
     * @param max the largest limit
     * @param initial the initial limit
     * @param latency the latency beyond which a request counts as dropped
     * @return the algorithm
     * @throws IllegalArgumentException if a value is out of range (see {@link Builder})
     */
    public static Aimd of(long min, long max, long initial, Duration latency) {
        return builder().min(min).max(max).initial(initial).latency(latency).build();
    }

    /**
     * @return the factor applied to the limit after a batch with a drop, or a smaller one
     *     ({@code 1 - f / 2}) when a share {@code f} of its requests were slower than
     *     {@code latency}
     */
    public double backoff() {
        return backoff;
    }

    /** @return the latency beyond which a request counts as dropped, nanoseconds */
    public long latencyNanos() {
        return latency;
    }

    @Override
    public String rule() {
        return "aimd";
    }

    @Override
    AdaptiveCell create(long now, long word, int partitions) {
        return new AimdCell(word, now, partitions);
    }

    @Override
    boolean drop(long rtt, boolean dropped) {
        return dropped || rtt > latency;
    }

    @Override
    void sample(AdaptiveCell cell, long now, long admitted, long rtt, boolean dropped, long inFlight) {
        if (!dropped && rtt > latency && admitted >= cell.epoch && cell instanceof AimdCell a) {
            a.addSlow();
        }
        super.sample(cell, now, admitted, rtt, dropped, inFlight);
    }

    @Override
    void update(AdaptiveCell cell, long now, long n, long drops, long meanRtt, long peak) {
        // A slow request racing with this recomputation may be counted here and its sample in
        // the next batch: the share is an estimate, kept within [0, 1].
        long slow = cell instanceof AimdCell a ? a.takeSlow() : 0;
        double slowShare = Math.min(1, slow / (double) n);
        double estimate = cell.estimate;
        if (drops > 0) {
            // Latency over the objective is a mark, as ECN is to DCTCP (RFC 8257), which cuts
            // its window by half the share of marked packets: a batch mostly over the objective
            // shows a limit far above what the server carries and is cut by up to half at once;
            // a batch with a few slow requests, or with drops (errors, timeouts: a signal of
            // overload, not of how far), is cut by the backoff.
            estimate = estimate * Math.min(backoff, 1 - slowShare / 2);
        } else if (2 * peak >= estimate) {
            estimate = estimate + 1;
        }
        cell.estimate = Math.max(min, Math.min(max, estimate));
    }

    /**
     * {@inheritDoc}
     *
     * <p>Plus the count of slow requests of the current batch.
     */
    @Override
    public long bytesPerKey() {
        return super.bytesPerKey() - objectBytes(17, 2, 1) + objectBytes(18, 2, 1);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Aimd a && sameSettings(a) && a.backoff == backoff && a.latency == latency;
    }

    @Override
    public int hashCode() {
        return Objects.hash(settingsHash(), backoff, latency);
    }

    @Override
    public String toString() {
        return "adaptive aimd{" + settings() + batch() + ", backoff=" + backoff + ", latency="
                + Units.duration(latency) + '}';
    }

    /** Builds an {@link Aimd}. Not thread-safe. */
    public static final class Builder extends AdaptiveLimit.Builder<Aimd, Builder> {
        private double backoff = DEFAULT_BACKOFF;
        private long latency = DEFAULT_LATENCY.toNanos();

        private Builder() {
        }

        /**
         * Sets the factor applied to the limit after a batch with a drop: the gentlest cut. A
         * batch in which a share {@code f} of the requests were slower than {@code latency} is
         * cut by {@code min(backoff, 1 - f / 2)}, so by half when all were.
         * Default: {@value Aimd#DEFAULT_BACKOFF}.
         *
         * @param backoff at least 0.5 and below 1
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder backoff(double backoff) {
            if (!(backoff >= 0.5 && backoff < 1)) {
                throw new IllegalArgumentException(
                        "backoff must be at least 0.5 and below 1 but was " + backoff);
            }
            this.backoff = backoff;
            return this;
        }

        /**
         * Sets the latency beyond which a request counts as dropped, like a timeout. Default: five
         * seconds.
         *
         * @param latency {@code > 0}
         * @return this builder
         * @throws NullPointerException if {@code latency} is null
         * @throws IllegalArgumentException if not positive or too long
         */
        public Builder latency(Duration latency) {
            this.latency = Checks.positiveNanos("latency", latency);
            return this;
        }

        /**
         * Sets how many samples make a batch: the limit is recomputed once per batch, or once per
         * {@link #window(Duration) window} if that comes first. Default:
         * {@value AdaptiveLimit#DEFAULT_SAMPLES}.
         *
         * @param samples between 1 and 1,000,000
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder samples(long samples) {
            batchSamples(samples);
            return this;
        }

        /**
         * Sets the longest time between two recomputations of a key that has samples, for keys
         * too quiet to fill a batch. Default: one second.
         *
         * @param window {@code > 0}
         * @return this builder
         * @throws NullPointerException if {@code window} is null
         * @throws IllegalArgumentException if not positive or too long
         */
        public Builder window(Duration window) {
            batchWindow(window);
            return this;
        }

        @Override
        Builder self() {
            return this;
        }

        @Override
        Aimd create() {
            return new Aimd(this);
        }
    }
}

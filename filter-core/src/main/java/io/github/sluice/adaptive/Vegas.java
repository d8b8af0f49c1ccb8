package io.github.sluice.adaptive;

import java.time.Duration;
import java.util.Objects;

/**
 * TCP Vegas's rule, as Netflix concurrency-limits' {@code VegasLimit}: the queue a limit
 * builds is estimated from the latency without load and the current one,
 * {@code queue = limit * (1 - noLoad / latency)}, and kept between {@code alpha} and
 * {@code beta} times {@code log10(limit)}: at most {@code log10(limit)}, the limit grows by
 * {@code beta * log10(limit)} per batch; below {@code alpha * log10(limit)}, by
 * {@code log10(limit)}; above {@code beta * log10(limit)} it falls by the excess, at least
 * {@code log10(limit)} (each {@code log10} rounded down, at least 1). A batch with a drop takes
 * {@code log10(limit)} off. The limit does not grow while the key uses less than half of it.
 *
 * <h2>Noise</h2>
 * Latencies vary from request to request; a queue estimated from single requests, or from the
 * lowest batch mean, sees a queue where there is only chance, and holds the limit far below
 * capacity (Netflix's {@code VegasLimit} with the lowest single latency, issue 34). Here each
 * batch's mean comes with its standard error {@code se}: the latency without load is the lowest
 * {@code mean + 2se} seen, and the queue is estimated from {@code mean - 2se}. So only a queue
 * beyond chance moves the limit, however noisy the server.
 *
 * <p>A batch is also kept free of a bias of its own making: after the limit changes, the
 * requests admitted under the new limit that complete first are the short ones, so completions
 * within three round trips of the change are left out, and the limit is recomputed no sooner
 * than four round trips after it (a round trip is the last batch's mean latency; neither wait
 * exceeds {@code window}). The limit moves about once per few round trips, as TCP Vegas's
 * window does.
 *
 * <h2>Probes</h2>
 * After about {@code probe} times the limit in requests (jittered between half and all of it,
 * so that instances do not probe together), the latency without load is measured again, so
 * that a server whose own latency has risen is followed: the limit loses a quarter for one
 * batch, which drains the few requests Vegas lets queue, that batch's latency becomes the
 * reference, and the limit comes back.
 * (Taking the current latency as the new reference without draining, as Netflix does, would
 * count the current queue as no queue, and let latency ratchet up probe after probe under
 * sustained overload.)
 *
 * <p>Use it for servers with a stable latency without load, when the queue they build should
 * stay short: it keeps only a few requests waiting.
 *
 * <p>Immutable and thread-safe.
 */
public final class Vegas extends AdaptiveLimit<AdaptiveCell> {

    /** The default alpha: the limit grows while the queue is below 3 log10(limit). */
    public static final long DEFAULT_ALPHA = 3;
    /** The default beta: the limit falls while the queue is above 6 log10(limit). */
    public static final long DEFAULT_BETA = 6;
    /** The default probe: the latency without load is measured again after 30 times the limit in requests. */
    public static final long DEFAULT_PROBE = 30;

    /** Round trips after a change of the limit during which completions are left out. */
    private static final long SETTLE_RTTS = 3;
    /** Round trips after a change of the limit before it is recomputed from a full batch. */
    private static final long BATCH_RTTS = 4;

    private final long alpha;
    private final long beta;
    private final long probe;

    private Vegas(Builder b) {
        super(b);
        this.alpha = b.alpha;
        this.beta = b.beta;
        this.probe = b.probe;
    }

    /** @return a builder with the defaults documented on its setters */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Shorthand for {@code builder().min(min).max(max).initial(initial).build()}.
     *
     * @param min the smallest limit
     * @param max the largest limit
     * @param initial the initial limit
     * @return the algorithm
     * @throws IllegalArgumentException if a value is out of range (see {@link Builder})
     */
    public static Vegas of(long min, long max, long initial) {
        return builder().min(min).max(max).initial(initial).build();
    }

    /** @return the factor of log10(limit) below which the queue lets the limit grow */
    public long alpha() {
        return alpha;
    }

    /** @return the factor of log10(limit) above which the queue makes the limit fall */
    public long beta() {
        return beta;
    }

    /** @return the factor of the limit, in requests, after which the latency without load is measured again */
    public long probe() {
        return probe;
    }

    @Override
    public String rule() {
        return "vegas";
    }

    @Override
    AdaptiveCell create(long now, long word, int partitions) {
        return new AdaptiveCell(word, now, partitions);
    }

    @Override
    void reset(AdaptiveCell cell, long now) {
        super.reset(cell, now);
        cell.seed = now ^ 0x9E37_79B9_7F4A_7C15L;
        cell.mark = jitter(cell);
    }

    /**
     * Feeds one sample, counting only requests that tell of the current limit without bias.
     * After the limit changes, the first requests admitted under it to complete are the
     * fastest ones: a batch of them, taken as soon as it is full, holds only short latencies,
     * a latency without load far under the server's (in the simulation, 5.4 to 9.1 ms for a
     * mean service time of 10 ms) and a limit cut under the workers by queues that are not
     * there. So the samples that complete within {@value #SETTLE_RTTS} round trips (the last
     * batch's mean latency) of the change are left out, by then nearly every request admitted
     * just after it has completed, whatever its length; and the limit is recomputed no sooner
     * than {@value #BATCH_RTTS} round trips after the change, so that a batch spans at least a
     * round trip of completions; neither waits longer than {@code window}, so that a batch of
     * slow requests does not hold the limit still for three times their latency. A drop counts
     * at once. Like TCP Vegas, the limit moves about once per few round trips.
     */
    @Override
    void sample(AdaptiveCell cell, long now, long admitted, long rtt, boolean dropped, long inFlight) {
        long epoch = cell.epoch;
        if (admitted < epoch) {
            return;
        }
        long since = now - epoch;
        long roundTrip = Math.min(cell.lastRtt, window);
        if (!dropped && since < Math.min(SETTLE_RTTS * roundTrip, window)) {
            return;
        }
        long n = cell.addSample(rtt, drop(rtt, dropped), inFlight);
        if ((n >= samples && since >= Math.min(BATCH_RTTS * roundTrip, window)) || now - cell.due >= 0) {
            recompute(cell, now);
        }
    }

    @Override
    void update(AdaptiveCell cell, long now, long n, long drops, long meanRtt, long peak) {
        double estimate = cell.estimate;
        cell.counter += n;
        if (meanRtt >= 0) {
            double rtt = Math.max(1, meanRtt);
            // The batch's mean is known only to within its standard error: the latency without
            // load is the lowest mean plus that error, and a queue is only what exceeds it
            // beyond the error of the batch at hand.
            double high = rtt + 2 * cell.spread;
            double low = Math.max(1, rtt - 2 * cell.spread);
            if (cell.saved > 0) {
                // The batch after a probe ran under half the limit, with the queue drained.
                cell.reference = high;
                cell.estimate = clamp(Math.max(estimate, cell.saved));
                cell.saved = 0;
                return;
            }
            if (cell.counter >= cell.mark / 1e6 * probe * estimate && cell.reference > 0) {
                probe(cell, estimate);
                return;
            }
            if (cell.reference == 0 || high < cell.reference) {
                cell.reference = high;
                return;
            }
            long log = log10(estimate);
            if (drops > 0) {
                estimate -= log;
            } else if (2 * peak >= estimate) {
                double queue = Math.ceil(estimate * (1 - cell.reference / low));
                if (queue <= log) {
                    estimate += beta * log;
                } else if (queue < alpha * log) {
                    estimate += log;
                } else if (queue > beta * log) {
                    estimate -= Math.max(log, queue - beta * log);
                }
            }
        } else {
            estimate -= log10(estimate);
        }
        cell.estimate = clamp(estimate);
    }

    /**
     * Measures the latency without load again: takes a quarter off the limit for one batch, so
     * that the small queue Vegas keeps drains and the next batch's latency is the server's own,
     * then comes back.
     */
    private void probe(AdaptiveCell cell, double estimate) {
        cell.counter = 0;
        cell.mark = jitter(cell);
        cell.saved = estimate;
        cell.estimate = clamp(estimate * 3 / 4);
    }

    private double clamp(double estimate) {
        return Math.max(min, Math.min(max, estimate));
    }

    /** {@code log10(limit)} rounded down, at least 1. */
    private static long log10(double limit) {
        return Math.max(1, (long) Math.log10(limit));
    }

    /** The next probe's jitter, between half and all of it, in millionths; advances the seed. */
    private static long jitter(AdaptiveCell cell) {
        long x = cell.seed;
        x ^= x << 13;
        x ^= x >>> 7;
        x ^= x << 17;
        cell.seed = x;
        return 500_000 + Math.floorMod(x, 500_000L);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Vegas v && sameSettings(v) && v.alpha == alpha && v.beta == beta
                && v.probe == probe;
    }

    @Override
    public int hashCode() {
        return Objects.hash(settingsHash(), alpha, beta, probe);
    }

    @Override
    public String toString() {
        return "adaptive vegas{" + settings() + batch() + ", alpha=" + alpha + ", beta=" + beta + ", probe="
                + probe + '}';
    }

    /** Builds a {@link Vegas}. Not thread-safe. */
    public static final class Builder extends AdaptiveLimit.Builder<Vegas, Builder> {
        private long alpha = DEFAULT_ALPHA;
        private long beta = DEFAULT_BETA;
        private long probe = DEFAULT_PROBE;

        private Builder() {
        }

        /**
         * Sets the factor of {@code log10(limit)} below which the queue lets the limit grow.
         * Default: {@value Vegas#DEFAULT_ALPHA}.
         *
         * @param alpha between 1 and 100; {@link #build()} checks that it is below beta
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder alpha(long alpha) {
            if (alpha < 1 || alpha > 100) {
                throw new IllegalArgumentException("alpha must be between 1 and 100 but was " + alpha);
            }
            this.alpha = alpha;
            return this;
        }

        /**
         * Sets the factor of {@code log10(limit)} above which the queue makes the limit fall.
         * Default: {@value Vegas#DEFAULT_BETA}.
         *
         * @param beta between 2 and 100; {@link #build()} checks that it is above alpha
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder beta(long beta) {
            if (beta < 2 || beta > 100) {
                throw new IllegalArgumentException("beta must be between 2 and 100 but was " + beta);
            }
            this.beta = beta;
            return this;
        }

        /**
         * Sets after how many requests, as a factor of the limit, the latency without load is
         * measured again. Default: {@value Vegas#DEFAULT_PROBE}.
         *
         * @param probe between 1 and 1,000,000
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder probe(long probe) {
            if (probe < 1 || probe > 1_000_000) {
                throw new IllegalArgumentException("probe must be between 1 and 1000000 but was " + probe);
            }
            this.probe = probe;
            return this;
        }

        /**
         * @throws IllegalArgumentException also if alpha is not below beta
         */
        @Override
        public Vegas build() {
            if (alpha >= beta) {
                throw new IllegalArgumentException("alpha must be below beta (" + beta + ") but was " + alpha);
            }
            return super.build();
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
        Vegas create() {
            return new Vegas(this);
        }
    }
}

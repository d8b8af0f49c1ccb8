package io.github.sluice.adaptive;

import java.time.Duration;
import java.util.Objects;

/**
 * The idea of Netflix concurrency-limits' {@code Gradient2Limit}: compare a long-term average
 * latency with the short-term one. Their ratio, times a {@code tolerance}, is the gradient,
 * clamped between 0.5 and 1; each batch of requests that end moves the limit toward
 * {@code limit * gradient + queue}: down to it at once, up by the fraction {@code smoothing};
 * the limit stays between {@code min} and {@code max}. So the limit grows while latency stays
 * within {@code tolerance} times its long-term level, and falls, by at most half per batch, as
 * soon as it rises beyond.
 *
 * <h2>What differs from Gradient2, and why</h2>
 * <ul>
 *   <li><b>The long-term latency does not follow a rise while the key is loaded.</b> In
 *       Gradient2 the long-term average follows the short-term one; under sustained overload
 *       the limit holds latency at {@code tolerance} times the long-term level, which therefore
 *       keeps rising, and the limit with it (the drift reported in Netflix's issues 134 and
 *       137). Here it falls with latency at any time, but rises only when the key uses less
 *       than half its limit, or the limit is at {@code min}: then the latency cannot be the
 *       queue this limit allows, and is the server's new normal.
 *   <li><b>The queue allowance is added only when the gradient is 1</b>, so that a limit that
 *       is being cut is not pushed up at the same time (another source of drift under modest
 *       overload).
 *   <li><b>Drops count.</b> A batch with a drop is cut once by the largest step (gradient 0.5);
 *       a dropped request's latency (often a fast failure) is left out of the averages.
 *   <li><b>Batches, and falling at once.</b> The short-term latency is the mean of a batch
 *       (Gradient2 takes single requests, whose noise alone can halve the limit), and a batch
 *       moves the limit once. A batch holds only requests admitted since the limit last changed,
 *       so it is evidence about the current limit: the limit falls to its target at once
 *       rather than by the smoothing, and re-converges within a few batches when capacity drops.
 * </ul>
 * Use it for servers whose latency rises as work queues up, when the latency without load is
 * not known and may change.
 *
 * <p>Immutable and thread-safe.
 */
public final class Gradient extends AdaptiveLimit<AdaptiveCell> {

    /** The default tolerance: latency may rise to 1.5 times its long-term level before the limit falls. */
    public static final double DEFAULT_TOLERANCE = 1.5;
    /** The default smoothing: each batch moves a rising limit a fifth of the way. */
    public static final double DEFAULT_SMOOTHING = 0.2;
    /** The default queue allowance: 4 permits. */
    public static final long DEFAULT_QUEUE = 4;
    /** The default number of requests the long-term average spans. */
    public static final long DEFAULT_LONG_WINDOW = 600;

    /** Samples averaged plainly before the long-term average becomes exponential. */
    private static final long WARM_UP = 10;
    private static final double MIN_GRADIENT = 0.5;
    private static final double MAX_GRADIENT = 1;

    private final double tolerance;
    private final double smoothing;
    private final long queue;
    private final long longWindow;
    /** The per-sample weight of the long-term average. */
    private final double decay;

    private Gradient(Builder b) {
        super(b);
        this.tolerance = b.tolerance;
        this.smoothing = b.smoothing;
        this.queue = b.queue;
        this.longWindow = b.longWindow;
        this.decay = 1 - 2.0 / (b.longWindow + 1);
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
    public static Gradient of(long min, long max, long initial) {
        return builder().min(min).max(max).initial(initial).build();
    }

    /** @return how far latency may rise above its long-term level before the limit falls */
    public double tolerance() {
        return tolerance;
    }

    /** @return the fraction of the way each request moves the limit */
    public double smoothing() {
        return smoothing;
    }

    /** @return the queue allowance, in permits */
    public long queue() {
        return queue;
    }

    /** @return the number of requests the long-term average spans */
    public long longWindow() {
        return longWindow;
    }

    @Override
    public String rule() {
        return "gradient";
    }

    @Override
    AdaptiveCell create(long now, long word, int partitions) {
        return new AdaptiveCell(word, now, partitions);
    }

    @Override
    void update(AdaptiveCell cell, long now, long n, long drops, long meanRtt, long peak) {
        double estimate = cell.estimate;
        double gradient = MIN_GRADIENT;
        if (n > drops) {
            double shortRtt = Math.max(1, meanRtt);
            boolean appLimited = 2 * peak < estimate;
            double longRtt = learn(cell, shortRtt, n - drops, appLimited || estimate <= min);
            if (drops == 0) {
                if (appLimited) {
                    return; // an idle limit proves nothing
                }
                gradient = Math.max(MIN_GRADIENT, Math.min(MAX_GRADIENT, tolerance * longRtt / shortRtt));
            }
        }
        double target = estimate * gradient + queue;
        // Down at once, up by the smoothing: a batch holds only requests admitted since the limit
        // last changed, so latency beyond tolerance is evidence about this very limit, and every
        // batch spent above capacity adds to the queue; a rise, though, is a probe, taken gently.
        estimate = target < estimate ? target : estimate * (1 - smoothing) + target * smoothing;
        cell.estimate = Math.max(min, Math.min(max, estimate));
    }

    /** Updates the long-term latency with {@code k} samples of {@code shortRtt}; returns it. */
    private double learn(AdaptiveCell cell, double shortRtt, long k, boolean mayRise) {
        double longRtt = cell.reference;
        if (cell.counter < WARM_UP) {
            longRtt = (longRtt * cell.counter + shortRtt * k) / (cell.counter + k);
            cell.counter += k;
        } else if (shortRtt < longRtt || mayRise) {
            longRtt += (1 - Math.pow(decay, k)) * (shortRtt - longRtt);
        }
        cell.reference = longRtt;
        return longRtt;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Gradient g && sameSettings(g) && g.tolerance == tolerance
                && g.smoothing == smoothing && g.queue == queue && g.longWindow == longWindow;
    }

    @Override
    public int hashCode() {
        return Objects.hash(settingsHash(), tolerance, smoothing, queue, longWindow);
    }

    @Override
    public String toString() {
        return "adaptive gradient{" + settings() + batch() + ", tolerance=" + tolerance + ", smoothing="
                + smoothing + ", queue=" + queue + ", longWindow=" + longWindow + '}';
    }

    /** Builds a {@link Gradient}. Not thread-safe. */
    public static final class Builder extends AdaptiveLimit.Builder<Gradient, Builder> {
        private double tolerance = DEFAULT_TOLERANCE;
        private double smoothing = DEFAULT_SMOOTHING;
        private long queue = DEFAULT_QUEUE;
        private long longWindow = DEFAULT_LONG_WINDOW;

        private Builder() {
        }

        /**
         * Sets how far latency may rise above its long-term level before the limit falls.
         * Default: {@value Gradient#DEFAULT_TOLERANCE}.
         *
         * @param tolerance between 1 and 10
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder tolerance(double tolerance) {
            if (!(tolerance >= 1 && tolerance <= 10)) {
                throw new IllegalArgumentException("tolerance must be between 1 and 10 but was " + tolerance);
            }
            this.tolerance = tolerance;
            return this;
        }

        /**
         * Sets the fraction of the way each request moves the limit toward its target. Default:
         * {@value Gradient#DEFAULT_SMOOTHING}.
         *
         * @param smoothing above 0, at most 1
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder smoothing(double smoothing) {
            if (!(smoothing > 0 && smoothing <= 1)) {
                throw new IllegalArgumentException("smoothing must be above 0 and at most 1 but was " + smoothing);
            }
            this.smoothing = smoothing;
            return this;
        }

        /**
         * Sets the queue allowance: the permits added to the target while latency shows no
         * queue, which lets the limit grow. Default: {@value Gradient#DEFAULT_QUEUE}.
         *
         * @param queue between 0 and 1,000,000
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder queue(long queue) {
            if (queue < 0 || queue > 1_000_000) {
                throw new IllegalArgumentException("queue must be between 0 and 1000000 but was " + queue);
            }
            this.queue = queue;
            return this;
        }

        /**
         * Sets how many requests the long-term average latency spans. Default:
         * {@value Gradient#DEFAULT_LONG_WINDOW}.
         *
         * @param longWindow between 10 and 1,000,000
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder longWindow(long longWindow) {
            if (longWindow < WARM_UP || longWindow > 1_000_000) {
                throw new IllegalArgumentException("longWindow must be between " + WARM_UP
                        + " and 1000000 but was " + longWindow);
            }
            this.longWindow = longWindow;
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
        Gradient create() {
            return new Gradient(this);
        }
    }
}

package io.github.sluice.adaptive;

import io.github.sluice.internal.Checks;
import io.github.sluice.internal.Units;
import java.time.Duration;
import java.util.Objects;

/**
 * Load shedding in the style of Kratos's BBR limiter (itself after Sentinel's system
 * protection): nothing is refused while the CPU is below a threshold; above it, a request is
 * admitted only while the permits in flight stay within what the server has shown it can carry,
 * {@code maxPass * minRt}: the most requests that ended in one bucket of a sliding window,
 * times the lowest mean latency of a bucket, per bucket duration (Little's law: throughput times
 * latency is concurrency). After a refusal at high CPU, shedding stays on for a
 * {@code coolDown} even if the CPU falls, so that a gauge that lags does not open the gate into
 * the overload it has just shed.
 *
 * <h2>Window</h2>
 * Requests that end are counted in buckets of {@code window / buckets}; the estimate uses the
 * complete buckets of the last {@code window} (not the one in progress), and is recomputed once
 * per bucket, by whichever thread first ends a request in a new bucket. Dropped requests are
 * not counted: a request that failed shows no capacity. A bucket is one {@code long} for its
 * count and one for its latencies (in microseconds), each stamped with its bucket's number, and
 * updated by compare-and-set.
 *
 * <h2>Decisions</h2>
 * While it does not shed, the limit a decision reports is {@code max}. The computed limit stays
 * between {@code min} and {@code max}; before the first complete bucket it is the initial limit.
 * The CPU comes from a {@link CpuGauge}, by default {@link CpuGauge#process()}. A limit that
 * reacts to capacity only through its window re-converges after a drop in capacity within about
 * one window: choose it short enough for that.
 *
 * <p>Use it to protect a CPU-bound server from overload without a latency objective: it costs
 * nothing while the CPU has room.
 *
 * <p>Immutable and thread-safe.
 */
public final class Bbr extends AdaptiveLimit<Bbr.BbrCell> {

    /** The default CPU threshold: 80 %. */
    public static final double DEFAULT_CPU = 0.8;
    /** The default window: ten seconds. */
    public static final Duration DEFAULT_WINDOW = Duration.ofSeconds(10);
    /** The default number of buckets in the window. */
    public static final int DEFAULT_BUCKETS = 100;
    /** The default cool-down after a refusal at high CPU: one second. */
    public static final Duration DEFAULT_COOL_DOWN = Duration.ofSeconds(1);

    private static final long STAMP_MASK = 0xFFFF_FFFFL;
    /** Refusals at high CPU stamp the cell at most once per millisecond. */
    private static final long STAMP_GRAIN = 1_000_000L;

    /**
     * A key's state under {@link Bbr}: an {@link AdaptiveCell} plus the buckets of its window and
     * the time of its last refusal at high CPU. Thread-safe.
     */
    public static final class BbrCell extends AdaptiveCell {
        /** Per bucket: the count word, then the latency word; each {@code stamp << 32 | value}. */
        final long[] ring;
        /** The bucket in which the limit was last computed. */
        volatile long computed = Long.MIN_VALUE;
        /** The clock reading of the last refusal at high CPU, to the millisecond, or {@link #NEVER}. */
        volatile long lastDrop = NEVER;

        BbrCell(long word, long origin, int partitions, int buckets) {
            super(word, origin, partitions);
            this.ring = new long[2 * buckets];
        }
    }

    private final double cpu;
    private final CpuGauge gauge;
    private final long statsWindow;
    private final int buckets;
    private final long bucketNanos;
    private final long coolDown;

    private Bbr(Builder b) {
        super(b);
        this.cpu = b.cpu;
        this.gauge = b.gauge;
        this.statsWindow = b.statsWindow;
        this.buckets = b.buckets;
        this.bucketNanos = b.statsWindow / b.buckets;
        this.coolDown = b.coolDown;
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
     * @throws UnsupportedOperationException if this JVM does not report its CPU usage
     */
    public static Bbr of(long min, long max, long initial) {
        return builder().min(min).max(max).initial(initial).build();
    }

    /** @return the CPU usage, between 0 and 1, from which requests are shed */
    public double cpu() {
        return cpu;
    }

    /** @return the gauge of CPU usage */
    public CpuGauge gauge() {
        return gauge;
    }

    /** @return the window of the statistics, nanoseconds */
    public long statsWindowNanos() {
        return statsWindow;
    }

    /** @return the number of buckets in the window */
    public int buckets() {
        return buckets;
    }

    /** @return the cool-down after a refusal at high CPU, nanoseconds */
    public long coolDownNanos() {
        return coolDown;
    }

    @Override
    public String rule() {
        return "bbr";
    }

    @Override
    BbrCell create(long now, long word, int partitions) {
        return new BbrCell(word, now, partitions, buckets);
    }

    @Override
    void update(BbrCell cell, long now, long n, long drops, long meanRtt, long peak) {
        // Not used: samples go to the buckets (see sample).
    }

    @Override
    long admissionLimit(BbrCell cell, long limit, long now) {
        return shedding(cell, now) ? limit : max;
    }

    private boolean shedding(BbrCell cell, long now) {
        if (gauge.usage(now) >= cpu) {
            return true;
        }
        long last = cell.lastDrop;
        return last != AdaptiveCell.NEVER && now - last <= coolDown;
    }

    @Override
    void refused(BbrCell cell, long now, long inFlight) {
        // Only with requests in flight: their releases then mark the key active after the stamp,
        // so a key that is forgotten is never in a cool-down.
        if (inFlight > 0 && gauge.usage(now) >= cpu) {
            long last = cell.lastDrop;
            if (last == AdaptiveCell.NEVER || now - last >= STAMP_GRAIN) {
                cell.lastDrop = now;
            }
        }
    }

    @Override
    void sample(BbrCell cell, long now, long admitted, long rtt, boolean dropped, long inFlight) {
        long bucket = Math.floorDiv(now - cell.origin, bucketNanos);
        if (!dropped) {
            add(cell.ring, bucket, 0, 1);
            add(cell.ring, bucket, 1, rtt / 1000);
        }
        if (bucket > cell.computed && cell.tryUpdate()) {
            try {
                if (bucket > cell.computed) {
                    cell.computed = bucket;
                    estimate(cell, bucket);
                }
            } finally {
                cell.doneUpdating();
            }
        }
    }

    /** Adds to a bucket's word, starting the bucket afresh if it holds an older one's. */
    private void add(long[] ring, long bucket, int word, long delta) {
        int i = 2 * (int) Math.floorMod(bucket, (long) buckets) + word;
        long stamp = bucket & STAMP_MASK;
        while (true) {
            long w = (long) AdaptiveCell.BUSY.getVolatile(ring, i);
            long seen = w >>> 32;
            long next;
            if (seen == stamp) {
                next = w + Math.min(delta, STAMP_MASK - (w & STAMP_MASK)); // saturates
            } else if ((int) (seen - stamp) > 0) {
                return; // a later bucket took the slot: this sample is too old to count
            } else {
                next = (stamp << 32) | Math.min(delta, STAMP_MASK);
            }
            if (AdaptiveCell.BUSY.compareAndSet(ring, i, w, next)) {
                return;
            }
        }
    }

    /** Recomputes the limit from the complete buckets of the window before {@code bucket}. */
    private void estimate(BbrCell cell, long bucket) {
        long maxPass = 0;
        double minRt = Double.MAX_VALUE;
        for (long j = bucket - buckets + 1; j < bucket; j++) {
            int i = 2 * (int) Math.floorMod(j, (long) buckets);
            long stamp = j & STAMP_MASK;
            long pass = (long) AdaptiveCell.BUSY.getVolatile(cell.ring, i);
            if (pass >>> 32 != stamp || (pass & STAMP_MASK) == 0) {
                continue;
            }
            long count = pass & STAMP_MASK;
            maxPass = Math.max(maxPass, count);
            long rt = (long) AdaptiveCell.BUSY.getVolatile(cell.ring, i + 1);
            if (rt >>> 32 == stamp) {
                minRt = Math.min(minRt, (double) (rt & STAMP_MASK) / count);
            }
        }
        if (maxPass == 0 || minRt == Double.MAX_VALUE) {
            return; // nothing measured yet: the limit stays
        }
        cell.estimate = Math.floor(maxPass * minRt * 1000 / bucketNanos + 0.5);
        publish(cell, limitFor(cell.estimate), (cell.word() & AdaptiveCell.FORGOTTEN) != 0);
    }

    /**
     * {@inheritDoc}
     *
     * <p>Plus the window's buckets (two {@code long}s each), the reference to them, the bucket of
     * the last computation and the stamp of the last refusal.
     */
    @Override
    public long bytesPerKey() {
        return super.bytesPerKey() - objectBytes(17, 2, 1) + objectBytes(19, 2, 2)
                + longArrayBytes(2L * buckets);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Bbr b && sameSettings(b) && b.cpu == cpu && b.gauge.equals(gauge)
                && b.statsWindow == statsWindow && b.buckets == buckets && b.coolDown == coolDown;
    }

    @Override
    public int hashCode() {
        return Objects.hash(settingsHash(), cpu, gauge, statsWindow, buckets, coolDown);
    }

    @Override
    public String toString() {
        return "adaptive bbr{" + settings() + ", cpu=" + cpu + ", gauge=" + gauge + ", window="
                + Units.duration(statsWindow) + ", buckets=" + buckets + ", coolDown="
                + Units.duration(coolDown) + '}';
    }

    /** Builds a {@link Bbr}. Not thread-safe. */
    public static final class Builder extends AdaptiveLimit.Builder<Bbr, Builder> {
        private double cpu = DEFAULT_CPU;
        private CpuGauge gauge;
        private long statsWindow = DEFAULT_WINDOW.toNanos();
        private int buckets = DEFAULT_BUCKETS;
        private long coolDown = DEFAULT_COOL_DOWN.toNanos();

        private Builder() {
        }

        /**
         * Sets the CPU usage from which requests are shed. Default: {@value Bbr#DEFAULT_CPU}.
         *
         * @param cpu above 0, at most 1
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder cpu(double cpu) {
            if (!(cpu > 0 && cpu <= 1)) {
                throw new IllegalArgumentException("cpu must be above 0 and at most 1 (100%) but was " + cpu);
            }
            this.cpu = cpu;
            return this;
        }

        /**
         * Sets where the CPU usage comes from. Default: {@link CpuGauge#process()}, checked when
         * the algorithm is built.
         *
         * @param gauge the gauge
         * @return this builder
         * @throws NullPointerException if {@code gauge} is null
         */
        public Builder gauge(CpuGauge gauge) {
            this.gauge = Objects.requireNonNull(gauge, "gauge");
            return this;
        }

        /**
         * Sets the window of the statistics: how far back the most requests ended in a bucket,
         * and the lowest latency, are looked for. Default: ten seconds.
         *
         * @param window {@code > 0}; {@link #build()} checks that each bucket is at least a
         *     microsecond
         * @return this builder
         * @throws NullPointerException if {@code window} is null
         * @throws IllegalArgumentException if not positive or too long
         */
        public Builder window(Duration window) {
            this.statsWindow = Checks.positiveNanos("window", window);
            return this;
        }

        /**
         * Sets the number of buckets in the window. Default: {@value Bbr#DEFAULT_BUCKETS}.
         *
         * @param buckets between 2 and 10,000
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder buckets(int buckets) {
            this.buckets = (int) Checks.between("buckets", buckets, 2, 10_000);
            return this;
        }

        /**
         * Sets how long shedding stays on after a refusal at high CPU. Default: one second.
         *
         * @param coolDown {@code >= 0}
         * @return this builder
         * @throws NullPointerException if {@code coolDown} is null
         * @throws IllegalArgumentException if negative or too long
         */
        public Builder coolDown(Duration coolDown) {
            this.coolDown = Checks.nonNegativeNanos("coolDown", coolDown);
            return this;
        }

        /**
         * @throws IllegalArgumentException also if a bucket would be shorter than a microsecond,
         *     or {@code idle} shorter than the window or the cool-down (a key must not be
         *     forgotten while its buckets or its cool-down still count)
         * @throws UnsupportedOperationException if no gauge was given and this JVM does not
         *     report its CPU usage
         */
        @Override
        public Bbr build() {
            if (statsWindow / buckets < 1000) {
                throw new IllegalArgumentException("window / buckets must be at least 1us but was "
                        + Units.duration(statsWindow) + " / " + buckets);
            }
            if (idle < statsWindow || idle < coolDown) {
                throw new IllegalArgumentException("idle must be at least the window ("
                        + Units.duration(statsWindow) + ") and the cool-down (" + Units.duration(coolDown)
                        + ") but was " + Units.duration(idle));
            }
            if (gauge == null) {
                gauge = CpuGauge.process();
            }
            return super.build();
        }

        @Override
        Builder self() {
            return this;
        }

        @Override
        Bbr create() {
            return new Bbr(this);
        }
    }
}

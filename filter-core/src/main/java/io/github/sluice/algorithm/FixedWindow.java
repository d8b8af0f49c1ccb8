package io.github.sluice.algorithm;

import io.github.sluice.core.Algorithm;
import io.github.sluice.core.Cell;
import io.github.sluice.core.Decision;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.internal.Checks;
import java.time.Duration;
import java.util.Objects;

/**
 * Fixed-window counter with the semantics of go-zero's {@code PeriodLimit}: at most {@code limit}
 * permits per window; the count starts again at zero when a new window begins.
 *
 * <h2>Windows</h2>
 * <ul>
 *   <li>{@link Alignment#EPOCH} (the default, go-zero's {@code Align()}): windows start at
 *       multiples of the window since the Unix epoch (the {@link io.github.sluice.core.Clock} is
 *       epoch-anchored), so a one-minute window starts on the minute for every key.
 *   <li>{@link Alignment#FIRST_REQUEST} (go-zero without alignment: the key's TTL is set by its
 *       first request): a key's window starts at the first admitted request, and after it ends,
 *       a new one starts at the next admitted request. The start is the request's clock reading
 *       rounded <em>up</em> to a multiple of {@code 2^(b-1)} nanoseconds, where {@code b} is the
 *       bit length of {@code limit} (so at most {@code limit} ns later: 64 ns for a limit of 100);
 *       this keeps a key's state in one word and only ever lengthens a window by that much.
 *       The lengthening is not reported: {@code reset} is at most the window, so that a window
 *       opened by a request reads as exactly the window (a 10 s window announces {@code t=10},
 *       not 11); the enforcement keeps the rounded-up end, which is never early.
 * </ul>
 *
 * <h2>Decisions</h2>
 * A request of {@code cost} is admitted if {@code count + cost <= limit}. go-zero's three answers
 * map to Decisions: <b>Allowed</b> is an admission with {@code remaining > 0}; <b>HitQuota</b> is
 * the admission that takes the last permit, i.e. an <em>allowed</em> decision with
 * {@code remaining == 0}; <b>OverQuota</b> is a denial. {@code reset} is the time to the window's
 * end, or 0 when nothing is counted (the quota is already whole); a denial's retry-after is the
 * time to the window's end, or {@link Decision#NEVER} if {@code cost > limit}. A cost of zero peeks,
 * and a denial never writes (unlike go-zero, whose {@code INCRBY} also counts refused calls; this
 * changes no decision, since refused calls only happen once the window is full).
 *
 * <h2>State</h2>
 * One word per key, {@code (window number since the key's origin) << b | count}, updated by one
 * compare-and-set; the origin is fixed when the key is created. The window number lasts 146
 * years, which requires {@code limit < 2^(floor(log2(window ns)) + 1)}, about two permits per
 * nanosecond of window; a larger limit fails at build time. A key is fresh (evictable without
 * loss) when its window has passed or its count is zero.
 *
 * <p>A refund ({@link #release}) lowers the current window's count; it is meant to follow its
 * acquisition at once (as {@code Store.acquireAll} does). A refund arriving after the window
 * ended is dropped.
 *
 * <p>Immutable and thread-safe.
 */
public final class FixedWindow extends Algorithm<FixedWindow.WindowCell> {

    /** Where windows start. */
    public enum Alignment {
        /** Windows start at multiples of the window since the Unix epoch, the same for every key. */
        EPOCH,
        /** A key's window starts at its first admitted request after the previous one ended. */
        FIRST_REQUEST
    }

    /**
     * A key's state: the {@link Cell} word plus the fixed origin its window numbers count from.
     * Thread-safe.
     */
    public static final class WindowCell extends Cell {
        private final long origin;

        WindowCell(long origin) {
            super(0);
            this.origin = origin;
        }

        /**
         * @return the origin, in units of the window ({@link Alignment#EPOCH}) or of the start
         *     rounding ({@link Alignment#FIRST_REQUEST}) since the epoch
         */
        public long origin() {
            return origin;
        }
    }

    private final long limit;
    private final long window;
    private final Alignment alignment;
    private final WindowWord layout;
    /** The length of one index step: the window, or the start rounding of FIRST_REQUEST. */
    private final long unit;

    private FixedWindow(long limit, long window, Alignment alignment) {
        this.limit = limit;
        this.window = window;
        this.alignment = alignment;
        this.layout = new WindowWord(limit, window, "window");
        this.unit = alignment == Alignment.EPOCH ? window : 1L << (layout.countBits - 1);
    }

    /** @return a builder; {@code limit} and {@code window} must be set */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Shorthand for an epoch-aligned window.
     *
     * @param limit permits per window, {@code >= 1}
     * @param window the window's length
     * @return the algorithm
     * @throws IllegalArgumentException if a value is out of range (see {@link Builder})
     */
    public static FixedWindow of(long limit, Duration window) {
        return builder().limit(limit).window(window).build();
    }

    /** @return where windows start */
    public Alignment alignment() {
        return alignment;
    }

    /**
     * @return for {@link Alignment#FIRST_REQUEST}, the rounding of a window's start in nanoseconds;
     *     for {@link Alignment#EPOCH}, the window
     */
    public long startRoundingNanos() {
        return unit;
    }

    @Override
    public String kind() {
        return "fixed-window";
    }

    @Override
    public long limit() {
        return limit;
    }

    @Override
    public long windowNanos() {
        return window;
    }

    /** @return 32: a {@link WindowCell} (header, the word, the access stamp, the origin) */
    @Override
    public long bytesPerKey() {
        return objectBytes(2, 1, 0);
    }

    @Override
    public WindowCell newCell(long now) {
        return new WindowCell(Math.floorDiv(now, unit));
    }

    @Override
    public int acquire(WindowCell cell, long now, long cost, MutableDecision out) {
        long current = layout.clamp(Math.floorDiv(now, unit) - cell.origin);
        long opening = alignment == Alignment.EPOCH ? current
                : layout.clamp(-Math.floorDiv(-now, unit) - cell.origin);
        while (true) {
            long w = cell.word();
            if (w == Cell.RETIRED) {
                return RETIRED;
            }
            long index = layout.index(w);
            long count = layout.count(w);
            if (!open(cell, index, count, current, now)) {
                index = opening;
                count = 0;
            }
            long end = end(cell, index);
            // FIRST_REQUEST's rounded-up start may put the end up to 2^(b-1) ns beyond a window
            // from now; reporting that would turn a fresh 10 s window into "t=11".
            long reset = Math.min(end - now, window);
            if (cost > limit) {
                if (out != null) {
                    out.deny(limit, limit - count, count > 0 ? reset : 0, Decision.NEVER);
                }
                return DENIED;
            }
            if (count + cost > limit) {
                // count > 0 here, so the window is open and ends after now.
                if (out != null) {
                    out.deny(limit, limit - count, reset, end - now);
                }
                return DENIED;
            }
            if (cost == 0 || cell.casWord(w, layout.pack(index, count + cost))) {
                if (out != null) {
                    out.allow(limit, limit - count - cost, count + cost > 0 ? reset : 0);
                }
                return ADMITTED;
            }
        }
    }

    /** Whether the stored window still counts at {@code now}. */
    private boolean open(WindowCell cell, long index, long count, long current, long now) {
        if (count == 0) {
            return false;
        }
        // EPOCH: a window number ahead of ours comes from a thread with a later clock reading.
        return alignment == Alignment.EPOCH ? index >= current : now < end(cell, index);
    }

    /** The end of the window numbered {@code index}, in clock nanoseconds. */
    private long end(WindowCell cell, long index) {
        long start = (cell.origin + index) * unit;
        return alignment == Alignment.EPOCH ? start + unit : start + window;
    }

    @Override
    public void release(WindowCell cell, long now, long cost) {
        if (cost <= 0) {
            return;
        }
        long current = layout.clamp(Math.floorDiv(now, unit) - cell.origin);
        while (true) {
            long w = cell.word();
            if (w == Cell.RETIRED) {
                return;
            }
            long index = layout.index(w);
            long count = layout.count(w);
            if (!open(cell, index, count, current, now)) {
                return;
            }
            if (cell.casWord(w, layout.pack(index, Math.max(0, count - cost)))) {
                return;
            }
        }
    }

    @Override
    public boolean isFresh(WindowCell cell, long now) {
        long w = cell.word();
        return w != Cell.RETIRED && fresh(cell, w, now);
    }

    @Override
    public boolean retireIfFresh(WindowCell cell, long now) {
        long w = cell.word();
        return w != Cell.RETIRED && fresh(cell, w, now) && cell.retire(w);
    }

    private boolean fresh(WindowCell cell, long w, long now) {
        long current = layout.clamp(Math.floorDiv(now, unit) - cell.origin);
        return !open(cell, layout.index(w), layout.count(w), current, now);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof FixedWindow f && f.limit == limit && f.window == window
                && f.alignment == alignment;
    }

    @Override
    public int hashCode() {
        return Objects.hash(limit, window, alignment);
    }

    @Override
    public String toString() {
        return "fixed-window{limit=" + limit + ", window=" + Duration.ofNanos(window)
                + ", alignment=" + alignment + '}';
    }

    /** Builds a {@link FixedWindow}. Not thread-safe. */
    public static final class Builder {
        private long limit;
        private long window;
        private Alignment alignment = Alignment.EPOCH;

        private Builder() {
        }

        /**
         * Sets the permits per window.
         *
         * @param limit {@code >= 1}
         * @return this builder
         * @throws IllegalArgumentException if {@code limit < 1}
         */
        public Builder limit(long limit) {
            this.limit = Checks.atLeast("limit", limit, 1);
            return this;
        }

        /**
         * Sets the window's length.
         *
         * @param window {@code > 0}, at most about 73 years
         * @return this builder
         * @throws IllegalArgumentException if {@code window} is zero, negative or too long
         * @throws NullPointerException if {@code window} is null
         */
        public Builder window(Duration window) {
            this.window = Checks.positiveNanos("window", window);
            return this;
        }

        /**
         * Sets where windows start. Default: {@link Alignment#EPOCH}.
         *
         * @param alignment the alignment
         * @return this builder
         * @throws NullPointerException if {@code alignment} is null
         */
        public Builder alignment(Alignment alignment) {
            this.alignment = Objects.requireNonNull(alignment, "alignment");
            return this;
        }

        /**
         * @return the algorithm
         * @throws IllegalStateException if limit or window is missing
         * @throws IllegalArgumentException if the limit is too large for the window (see
         *     {@link FixedWindow})
         */
        public FixedWindow build() {
            if (limit == 0) {
                throw new IllegalStateException("limit must be set");
            }
            if (window == 0) {
                throw new IllegalStateException("window must be set");
            }
            return new FixedWindow(limit, window, alignment);
        }
    }
}

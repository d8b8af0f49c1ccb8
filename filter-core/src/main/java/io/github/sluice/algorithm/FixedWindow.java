package io.github.sluice.algorithm;

import io.github.sluice.internal.Units;
import io.github.sluice.core.Algorithm;
import io.github.sluice.core.Cell;
import io.github.sluice.core.Clock;
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
 *       a new one starts at the next admitted request. So that a key's state fits one word, time
 *       is counted in <em>cells</em> of {@code u = 2^(b-1)} nanoseconds, where {@code b} is the
 *       bit length of {@code limit} (64 ns for a limit of 100): a window starts at the beginning
 *       of its first request's cell and covers the fewest whole cells that still reach at least
 *       {@code window} past that request, so it ends at least {@code window} after the request
 *       and less than {@code 2u} later than that (under 128 ns for a limit of 100). A reading
 *       belongs to the window whose cells contain it. The lengthening is not reported:
 *       {@code reset} is at most the window, so that a window opened by a request reads as
 *       exactly the window (a 10 s window announces {@code t=10}, not 11); the enforcement keeps
 *       the true end, which is never early.
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
 * <h2>Stale readings and refunds</h2>
 * The window number never moves backwards. A request whose clock reading falls before the stored
 * window (its thread read the clock, then was descheduled while others opened a later window) is
 * refused, with a retry-after that ends when its reading would have reached the stored window:
 * the earlier window's count is no longer known, so admitting it there could exceed the limit,
 * and counting it in the later window would exceed the limit of the window its reading belongs
 * to. This holds also when refunds have brought the stored window's count back to zero (a count
 * of zero no longer means "no window"). A refund ({@link #refund}) lowers the count of the window
 * its admission was counted in, named by its receipt (the window's number since the epoch, in
 * cells for {@link Alignment#FIRST_REQUEST}); if the key has moved to a later window, the refund
 * is dropped: the new window owes the old one nothing.
 *
 * <h2>Changing the limit on a live limiter</h2>
 * {@code BlockingLimiter.setRate} (through {@link RateChange}) applies a new limit to the current
 * window and keeps the count already taken in it: a window over the new limit refuses until it
 * ends, a raised limit lets the rest in at once. The count above a lowered limit is remembered
 * for that window, so lowering then raising the limit admits no more than the count taken leaves,
 * and a refund into such a window gives nothing back. A new window length keeps an
 * {@link Alignment#EPOCH} key aligned (the count moves into the new-length window containing now)
 * and lets a {@link Alignment#FIRST_REQUEST} window keep its start and end the new length after
 * it. See "Changing the rate" in {@code docs/algorithms.md}.
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
     * Thread-safe. Not extensible outside this package.
     */
    public static class WindowCell extends Cell {
        private final long origin;

        WindowCell(long origin) {
            this(origin, 0);
        }

        WindowCell(long origin, long word) {
            super(word);
            this.origin = origin;
        }

        /** The count beyond the word's of the window at {@code index}; see {@link CarriedCell}. */
        long excess(long index) {
            return 0;
        }

        /**
         * @return the origin, in units of the window ({@link Alignment#EPOCH}) or of the start
         *     rounding ({@link Alignment#FIRST_REQUEST}) since the epoch
         */
        public long origin() {
            return origin;
        }
    }

    /**
     * A cell made by a rate change ({@link #carry}) that carried a window over the new limit: the
     * word holds the new limit (the window refuses until it ends) and {@code excess} the count
     * above it, so that raising the limit again in the same window lets in only what the count
     * taken leaves. Only a carried cell has the extra field, so keys of an enforcer pay nothing.
     */
    static final class CarriedCell extends WindowCell {
        private final long excess;

        CarriedCell(long origin, long word, long excess) {
            super(origin, word);
            this.excess = excess;
        }

        @Override
        long excess(long index) {
            return index == 0 ? excess : 0;
        }
    }

    private final long limit;
    private final long window;
    private final Alignment alignment;
    private final WindowWord layout;
    /** The length of one index step (a cell): the window, or {@code 2^(b-1)} ns for FIRST_REQUEST. */
    private final long unit;
    /** How many cells a window covers: 1 for EPOCH; for FIRST_REQUEST, enough to never end early. */
    private final long span;
    /** {@code span * unit}: how long a window lasts from the start of its first cell. */
    private final long length;
    /** No cell computed yet; {@link #cellOf} returns -1 at the least. */
    private static final long NOT_YET = Long.MIN_VALUE;

    private FixedWindow(long limit, long window, Alignment alignment) {
        this.limit = limit;
        this.window = window;
        this.alignment = alignment;
        this.layout = new WindowWord(limit, window, "window");
        this.unit = alignment == Alignment.EPOCH ? window : 1L << (layout.countBits - 1);
        // A request anywhere in its first cell gets at least the window: (span - 1) * unit >=
        // window - 1.
        this.span = alignment == Alignment.EPOCH ? 1 : (window - 1 + unit - 1) / unit + 1;
        this.length = span * unit;
    }

    /** @return a builder; {@code limit} and {@code window} must be set */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * {@code limit} permits per epoch-aligned {@code window} ({@code fixed-window 5/1m}):
     * {@code FixedWindow.of(5, Duration.ofMinutes(1))}. For windows opened by a key's first request,
     * use the {@link #builder()}.
     *
     * @param limit permits per window, {@code >= 1}
     * @param window the window's length, {@code > 0}
     * @return the algorithm
     * @throws NullPointerException if {@code window} is null
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
     * @return for {@link Alignment#FIRST_REQUEST}, the length of a cell in nanoseconds (a window
     *     starts at the beginning of its first request's cell); for {@link Alignment#EPOCH}, the
     *     window
     */
    public long startRoundingNanos() {
        return unit;
    }

    /**
     * @return how long a window really lasts from the start of its first cell, in nanoseconds: the
     *     window itself for {@link Alignment#EPOCH}; for {@link Alignment#FIRST_REQUEST}, whole
     *     cells, at least the window plus a cell less one nanosecond
     */
    public long spanNanos() {
        return length;
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

    /** The cell of {@code now} since the key's origin; -1 for a reading before the origin. */
    private long cellOf(WindowCell cell, long now) {
        long c = Math.floorDiv(now, unit) - cell.origin;
        return c < 0 ? -1 : Math.min(c, layout.maxIndex);
    }

    @Override
    public int acquire(WindowCell cell, long now, long cost, MutableDecision out) {
        // The cell of now, a division: computed only when the stored window does not hold now,
        // i.e. about once per window and key rather than once per decision.
        long current = NOT_YET;
        while (true) {
            long w = cell.word();
            if (w == Cell.RETIRED) {
                return RETIRED;
            }
            long index = layout.index(w);
            long count = layout.count(w);
            long start = start(cell, index);
            boolean stale = false;
            if (count == 0 || now - start < 0 || now - start >= length) {
                if (current == NOT_YET) {
                    current = cellOf(cell, now);
                }
                // The stored window is ahead of this reading: another thread's later reading
                // opened it. Its predecessor's count is gone, so this request is refused (a peek
                // reports the stored window).
                stale = current < index;
                if (!stale && !(count > 0 && current < index + span)) {
                    // The stored window has passed, or counts nothing: a new one opens at this cell.
                    index = current;
                    count = 0;
                    start = start(cell, index);
                }
            } // else the stored window is open and holds now: cells index .. index + span - 1
            long end = start + length;
            // FIRST_REQUEST's whole cells may put the end up to 2u ns beyond a window from now;
            // reporting that would turn a fresh 10 s window into "t=11".
            long reset = count > 0 ? Math.min(end - now, window) : 0;
            if (cost > limit) {
                if (out != null) {
                    out.deny(limit, limit - count, reset, Decision.NEVER);
                }
                return DENIED;
            }
            if (stale && cost > 0) {
                if (out != null) {
                    out.deny(limit, limit - count, reset,
                            count + cost <= limit ? start - now : end - now);
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
                    out.allow(limit, limit - count - cost,
                            count + cost > 0 ? Math.min(end - now, window) : 0);
                    if (cost > 0) {
                        out.receipt(cell.origin + index);
                    }
                }
                return ADMITTED;
            }
        }
    }

    /** The start of the window numbered {@code index}, in clock nanoseconds. */
    private long start(WindowCell cell, long index) {
        return (cell.origin + index) * unit;
    }

    /**
     * {@inheritDoc}
     *
     * <p>The receipt is the number of the window the admission was counted in (in cells since
     * the epoch). The refund lowers that window's count, never below zero, and only while it is
     * the key's stored window; a refund for a window the key has left is dropped. No clock is
     * read.
     */
    @Override
    public void refund(WindowCell cell, long cost, long receipt, Clock clock) {
        if (cost <= 0 || receipt == MutableDecision.NO_RECEIPT) {
            return;
        }
        long index = receipt - cell.origin;
        if (cell.excess(index) > 0) {
            return; // the window is over its limit even without the refunded permits
        }
        while (true) {
            long w = cell.word();
            if (w == Cell.RETIRED || layout.index(w) != index) {
                return;
            }
            long count = layout.count(w);
            if (count == 0 || cell.casWord(w, layout.pack(index, Math.max(0, count - cost)))) {
                return;
            }
        }
    }

    /**
     * Carries a key's window to {@code to}, the same alignment with another limit or window (see
     * {@link RateChange#carry}): the count taken in the window open at {@code now} is kept (a
     * count above the new limit refuses until the window ends). The window keeps its start and
     * ends a new window after it ({@link Alignment#FIRST_REQUEST}, never earlier than the new
     * window after its start), resp. for {@link Alignment#EPOCH} with another window length, the
     * count moves into the new-length window that contains now, so windows stay epoch-aligned. A
     * passed or empty window carries nothing.
     *
     * @return the new cell, the old one having been retired by one compare-and-set from the word
     *     the new one was computed from; {@code null} if the word changed meanwhile or was retired
     */
    WindowCell carry(WindowCell cell, FixedWindow to, long now) {
        long w = cell.word();
        if (w == Cell.RETIRED) {
            return null;
        }
        long index = layout.index(w);
        long count = layout.count(w) + cell.excess(index);
        WindowCell fresh;
        if (count == 0 || cellOf(cell, now) >= index + span) {
            fresh = to.newCell(now);
        } else {
            long start = start(cell, index);
            long origin;
            if (to.unit == unit) {
                origin = cell.origin + index; // the same window: receipts stay valid
            } else if (alignment == Alignment.EPOCH) {
                origin = Math.floorDiv(Math.max(now, start), to.unit);
            } else {
                // Rounded down to the new cell; the new span still reaches the window past start.
                origin = Math.floorDiv(start, to.unit);
            }
            long kept = Math.min(count, to.limit);
            long word = to.layout.pack(0, kept);
            fresh = count > kept ? new CarriedCell(origin, word, count - kept) : new WindowCell(origin, word);
        }
        return cell.retire(w) ? fresh : null;
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

    /** Nothing counted, or the window has passed: a new cell would decide the same. */
    private boolean fresh(WindowCell cell, long w, long now) {
        long count = layout.count(w);
        return count == 0 || cellOf(cell, now) >= layout.index(w) + span;
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
        return "fixed-window{limit=" + limit + ", window=" + Units.duration(window)
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

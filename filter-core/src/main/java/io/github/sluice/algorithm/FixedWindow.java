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
 *   <li>{@link Alignment#CALENDAR} ({@code fixed-window 10000/month zone=Europe/Paris}): windows
 *       are the days, weeks, months or years of a {@link CalendarPeriod} in a time zone, the same
 *       for every key, with their real lengths (a month of 28 to 31 days, a day of 23 or 25 hours
 *       across a daylight-saving change); {@code reset} and retry-after count to the real end.
 *       The window holding the latest reading is cached on the algorithm, so a decision costs
 *       what an epoch-aligned one does; the zone's rules are read once per window (by whichever
 *       thread first crosses its end) and for stale readings. The clock's readings are taken as
 *       wall time (a {@link io.github.sluice.core.Clock} is anchored to the epoch).
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
 * <p>Thread-safe; its configuration is immutable (a calendar window also caches the window that
 * holds the latest reading, which changes no decision and is not part of {@link #equals}).
 */
public final class FixedWindow extends Algorithm<FixedWindow.WindowCell> {

    /** Where windows start. */
    public enum Alignment {
        /** Windows start at multiples of the window since the Unix epoch, the same for every key. */
        EPOCH,
        /** A key's window starts at its first admitted request after the previous one ended. */
        FIRST_REQUEST,
        /**
         * Windows are the days, weeks, months or years of a {@link CalendarPeriod} in a time zone,
         * the same for every key (set by {@link Builder#calendar}).
         */
        CALENDAR
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
    /** The calendar of {@link Alignment#CALENDAR}, else {@code null}. */
    private final CalendarPeriod calendar;
    /**
     * The calendar window that holds the latest reading seen, or {@code null} before the first:
     * a decision reads it and computes a window from the zone's rules only once the clock has
     * left it, about once per window. Replaced only by a later window; two threads that cross the
     * end together may both compute it, which is harmless (the windows are equal).
     */
    private volatile CalendarPeriod.Window current;

    private FixedWindow(long limit, long window, Alignment alignment, CalendarPeriod calendar) {
        this.limit = limit;
        this.window = window;
        this.alignment = alignment;
        this.calendar = calendar;
        // A calendar window's word counts in windows no shorter than half a day.
        this.layout = calendar == null ? new WindowWord(limit, window, "window")
                : new WindowWord(limit, calendar.shortestNanos(), "calendar " + calendar.unit().name().toLowerCase(java.util.Locale.ROOT));
        this.unit = alignment != Alignment.FIRST_REQUEST ? window : 1L << (layout.countBits - 1);
        // A request anywhere in its first cell gets at least the window: (span - 1) * unit >=
        // window - 1.
        this.span = alignment != Alignment.FIRST_REQUEST ? 1 : (window - 1 + unit - 1) / unit + 1;
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

    /**
     * {@code limit} permits per calendar window ({@code fixed-window 10000/month
     * zone=Europe/Paris}): {@code FixedWindow.of(10_000, CalendarPeriod.of(Unit.MONTH,
     * ZoneId.of("Europe/Paris")))}.
     *
     * @param limit permits per window, {@code >= 1}
     * @param calendar the calendar period
     * @return the algorithm
     * @throws NullPointerException if {@code calendar} is null
     * @throws IllegalArgumentException if a value is out of range (see {@link Builder})
     */
    public static FixedWindow of(long limit, CalendarPeriod calendar) {
        return builder().limit(limit).calendar(calendar).build();
    }

    /** @return the calendar period of {@link Alignment#CALENDAR}, or {@code null} for the other alignments */
    public CalendarPeriod calendar() {
        return calendar;
    }

    /**
     * The calendar window that holds a reading, from the cache of the latest one (no allocation
     * while the reading stays in it); for the Redis store, which sends the script the bounds
     * around its reading.
     *
     * @param now a clock reading, nanoseconds since the epoch
     * @return the window holding {@code now}
     * @throws IllegalStateException unless the alignment is {@link Alignment#CALENDAR}
     */
    public CalendarPeriod.Window calendarWindow(long now) {
        if (calendar == null) {
            throw new IllegalStateException("not a calendar window: " + this);
        }
        return windowOf(now);
    }

    /** The window holding {@code now}: the cached one, or computed (and cached if later). */
    private CalendarPeriod.Window windowOf(long now) {
        CalendarPeriod.Window w = current;
        if (w != null && w.holds(now)) {
            return w;
        }
        CalendarPeriod.Window fresh = calendar.windowAt(now);
        // A stale reading (before the cached window) is answered but not cached: the cache
        // follows the latest window, so the next readings find it.
        if (w == null || now >= w.end()) {
            current = fresh;
        }
        return fresh;
    }

    /** @return where windows start */
    public Alignment alignment() {
        return alignment;
    }

    /**
     * @return for {@link Alignment#FIRST_REQUEST}, the length of a cell in nanoseconds (a window
     *     starts at the beginning of its first request's cell); for {@link Alignment#EPOCH}, the
     *     window; for {@link Alignment#CALENDAR}, the nominal window
     *     ({@link CalendarPeriod#nominalNanos()})
     */
    public long startRoundingNanos() {
        return unit;
    }

    /**
     * @return how long a window really lasts from the start of its first cell, in nanoseconds: the
     *     window itself for {@link Alignment#EPOCH}; for {@link Alignment#FIRST_REQUEST}, whole
     *     cells, at least the window plus a cell less one nanosecond; for
     *     {@link Alignment#CALENDAR}, the nominal window (each window's real length is its
     *     {@link CalendarPeriod.Window})
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

    /**
     * {@inheritDoc}
     *
     * <p>For {@link Alignment#CALENDAR}, the nominal window ({@link CalendarPeriod#nominalNanos()}:
     * 1, 7, 31 or 366 days); {@code t} and retry-after count to the real end of the window.
     */
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
        return new WindowCell(originAt(now));
    }

    /** The number since the epoch of the window (cell, calendar window) holding {@code t}. */
    private long originAt(long t) {
        return calendar == null ? Math.floorDiv(t, unit) : windowOf(t).ordinal();
    }

    /** The cell of {@code now} since the key's origin; -1 for a reading before the origin. */
    private long cellOf(WindowCell cell, long now) {
        long c = originAt(now) - cell.origin;
        return c < 0 ? -1 : Math.min(c, layout.maxIndex);
    }

    @Override
    public int acquire(WindowCell cell, long now, long cost, MutableDecision out) {
        if (calendar != null) {
            return acquireCalendar(cell, now, cost, out);
        }
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
            int result = settle(cell, w, index, count, start, end, stale, window, now, cost, out);
            if (result != RETRY) {
                return result;
            }
        }
    }

    /**
     * {@link #acquire} for {@link Alignment#CALENDAR}: the same rule over the calendar's windows,
     * numbered by their ordinals since the key's origin. The window holding now comes from the
     * cache; the zone's rules are read only when the clock has left it, or for a stale reading.
     */
    private int acquireCalendar(WindowCell cell, long now, long cost, MutableDecision out) {
        CalendarPeriod.Window at = windowOf(now);
        long c = at.ordinal() - cell.origin;
        long current = c < 0 ? -1 : Math.min(c, layout.maxIndex);
        while (true) {
            long w = cell.word();
            if (w == Cell.RETIRED) {
                return RETIRED;
            }
            long index = layout.index(w);
            long count = layout.count(w);
            long start;
            long end;
            boolean stale = current < index;
            if (stale) {
                // Another thread's later reading opened a later window (rare: computed here).
                start = calendar.startNanos(cell.origin + index);
                end = calendar.startNanos(cell.origin + index + 1);
            } else {
                if (current != index || count == 0) {
                    // The stored window has passed, or counts nothing: the one holding now opens.
                    index = current;
                    count = 0;
                }
                start = at.start();
                end = at.end();
            }
            int result = settle(cell, w, index, count, start, end, stale, Long.MAX_VALUE, now, cost, out);
            if (result != RETRY) {
                return result;
            }
        }
    }

    /** {@link #settle}'s answer when the compare-and-set lost: read the word again. */
    private static final int RETRY = -1;

    /**
     * Decides on the window {@code [start, end)} numbered {@code index} holding {@code count}, as
     * read from word {@code w}; {@code stale} if the reading falls before it. {@code cap} bounds
     * the reported reset (the window for FIRST_REQUEST's whole cells).
     *
     * @return {@link #ADMITTED}, {@link #DENIED}, or {@link #RETRY} if the word changed meanwhile
     */
    private int settle(WindowCell cell, long w, long index, long count, long start, long end,
            boolean stale, long cap, long now, long cost, MutableDecision out) {
        long reset = count > 0 ? Math.min(end - now, cap) : 0;
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
                        count + cost > 0 ? Math.min(end - now, cap) : 0);
                if (cost > 0) {
                    out.receipt(cell.origin + index);
                }
            }
            return ADMITTED;
        }
        return RETRY;
    }

    /** The start of the window numbered {@code index}, in clock nanoseconds (EPOCH, FIRST_REQUEST). */
    private long start(WindowCell cell, long index) {
        return (cell.origin + index) * unit;
    }

    /** The start of the window numbered {@code index}, in clock nanoseconds, for every alignment. */
    private long startOf(WindowCell cell, long index) {
        return calendar == null ? start(cell, index) : calendar.startNanos(cell.origin + index);
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
            long start = startOf(cell, index);
            long origin;
            if (calendar != null || to.calendar != null) {
                // The same calendar keeps the window (receipts stay valid); any other change
                // moves the count into the new window that holds now, as EPOCH does.
                origin = calendar != null && calendar.equals(to.calendar) ? cell.origin + index
                        : to.originAt(Math.max(now, start));
            } else if (to.unit == unit) {
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
                && f.alignment == alignment && Objects.equals(f.calendar, calendar);
    }

    @Override
    public int hashCode() {
        return Objects.hash(limit, window, alignment, calendar);
    }

    @Override
    public String toString() {
        return "fixed-window{limit=" + limit + ", window="
                + (calendar == null ? Units.duration(window) : calendar.toString())
                + ", alignment=" + alignment + '}';
    }

    /** Builds a {@link FixedWindow}. Not thread-safe. */
    public static final class Builder {
        private long limit;
        private long window;
        private Alignment alignment = Alignment.EPOCH;
        private boolean alignmentSet;
        private CalendarPeriod calendar;

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
         * Sets the window's length. Exclusive with {@link #calendar}.
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
         * Makes the windows the days, weeks, months or years of a calendar in a zone
         * ({@link Alignment#CALENDAR}), instead of a {@link #window} of fixed length. Exclusive
         * with {@link #window}; the alignment, if set, must be {@link Alignment#CALENDAR}.
         *
         * @param calendar the calendar period
         * @return this builder
         * @throws NullPointerException if {@code calendar} is null
         */
        public Builder calendar(CalendarPeriod calendar) {
            this.calendar = Objects.requireNonNull(calendar, "calendar");
            return this;
        }

        /**
         * Sets where windows start. Default: {@link Alignment#EPOCH}, or {@link Alignment#CALENDAR}
         * when a {@link #calendar} is set.
         *
         * @param alignment the alignment
         * @return this builder
         * @throws NullPointerException if {@code alignment} is null
         */
        public Builder alignment(Alignment alignment) {
            this.alignment = Objects.requireNonNull(alignment, "alignment");
            this.alignmentSet = true;
            return this;
        }

        /**
         * @return the algorithm
         * @throws IllegalStateException if limit is missing, if neither window nor calendar is set,
         *     if both are, or if the alignment is {@link Alignment#CALENDAR} without a calendar
         * @throws IllegalArgumentException if the limit is too large for the window (see
         *     {@link FixedWindow}), or a calendar is given another alignment
         */
        public FixedWindow build() {
            if (limit == 0) {
                throw new IllegalStateException("limit must be set");
            }
            if (calendar != null) {
                if (window != 0) {
                    throw new IllegalStateException("window and calendar are exclusive: a calendar"
                            + " window's length is the calendar's (" + calendar + "), but a window of "
                            + Units.duration(window) + " was set too");
                }
                if (alignmentSet && alignment != Alignment.CALENDAR) {
                    throw new IllegalArgumentException("alignment must be CALENDAR for a calendar window ("
                            + calendar + ") but was " + alignment + ": calendar windows start on the"
                            + " calendar's boundaries, the same for every key");
                }
                long max = WindowWord.maxLimit(calendar.shortestNanos());
                if (limit > max) {
                    throw new IllegalArgumentException("limit must be at most " + max + " for a calendar "
                            + calendar.unit().name().toLowerCase(java.util.Locale.ROOT) + " but was " + limit
                            + " (one word per key holds the count and the window's number)");
                }
                return new FixedWindow(limit, calendar.nominalNanos(), Alignment.CALENDAR, calendar);
            }
            if (alignment == Alignment.CALENDAR) {
                throw new IllegalStateException("calendar must be set for alignment CALENDAR");
            }
            if (window == 0) {
                throw new IllegalStateException("window must be set");
            }
            return new FixedWindow(limit, window, alignment, null);
        }
    }
}

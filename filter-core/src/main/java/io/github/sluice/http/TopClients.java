package io.github.sluice.http;

import io.github.sluice.core.Clock;
import io.github.sluice.core.MutableDecision;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The clients one policy refused (or admitted) most often over the last minutes: the heavy hitters,
 * kept in bounded memory whatever the keys are. {@link PolicyMetrics#topClients(By)} returns it;
 * the admin servlet, the actuator endpoint and JMX show it.
 *
 * <h2>How it counts</h2>
 * One {@linkplain SpaceSaving Space-Saving summary} of {@link #size()} counters per minute, in a
 * ring of the last {@value #MINUTES} minutes and the current one. A request is counted in the
 * current minute's summary. Reading {@link #top(int) the last P minutes} merges the summaries of
 * the current minute and the P minutes before it (so the period covers between P and P + 1
 * minutes of traffic), the way Space-Saving summaries merge (Agarwal et al., "Mergeable
 * summaries", 2012): a key missing from a full minute's summary is counted there at that
 * summary's smallest count, its most.
 *
 * <h2>What the numbers guarantee</h2>
 * Over a period with {@code N} counted requests and summaries of {@code k} counters:
 * <ul>
 *   <li>each listed {@link Entry#count() count} is at least the client's true count, and at most
 *       its {@link Entry#error() error} above it;
 *   <li>a client held by no minute's summary made at most the sum of the full summaries'
 *       smallest counts, which is at most {@code N / k}; so <b>every client with more than
 *       {@code N / k} requests is held</b>, however many distinct keys a flood sends (a flood only
 *       churns the counters of small count), and listed unless {@code k} clients were counted more;
 *   <li>a client not listed made at most {@link Top#bound()} requests (for one minute, or while the
 *       period's summaries hold no more than {@code k} clients in all, at most {@code N / k});
 *   <li>memory is {@code (MINUTES + 1) * k} counters and the keys they hold, whatever the stream.
 * </ul>
 * The guarantees are exact for requests counted one at a time; under contention two threads may
 * count a new key in two counters at the same instant (merged on read), and the few requests
 * counted by a thread at the turn of a minute may land in the summary just retired.
 *
 * <h2>Keys</h2>
 * Keys are those the policy keyed the request by, as the store and the log see them: an address
 * (an IPv6 client's network, e.g. {@code 2001:db8:1:2::/64}), a chain's tagged key, or for a key
 * longer than {@code max-key-length} its digest ({@code sha256:...}, see
 * {@link io.github.sluice.key.Keys}); a digest is never reversed here. A denial without a key
 * ({@code unresolved=deny}) is counted in {@link PolicyMetrics#denied()} but not here.
 *
 * <h2>Cost</h2>
 * Counting takes no lock: a scan of the {@code k} counters' hashes and one compare-and-set (a key
 * not held: a second scan for the smallest count). It reads no clock of its own when the store is
 * the in-memory registry on this summary's clock: a request is counted in the minute of the
 * reading its decision was taken at ({@link MutableDecision#nanos()}), so a refusal costs no
 * second clock reading and is dated by the instant it was decided, not by a later one. It allocates nothing, except once per minute
 * the new minute's summary. Reading allocates and is meant for an operator, not for a hot path.
 * Thread-safe.
 */
public final class TopClients {

    /** The longest period that can be read, in minutes. */
    public static final int MINUTES = 15;

    /** The largest {@link #size()}. */
    public static final int MAX_SIZE = 1000;

    /** The default {@link #size()}. */
    public static final int DEFAULT_SIZE = 20;

    private static final long MINUTE_NANOS = 60_000_000_000L;

    /** What is counted. */
    public enum By {
        /** Requests the policy refused (for a dry-run policy: would have refused). */
        DENIED,
        /** Requests the policy admitted, at once or after a delay. */
        ADMITTED;

        /** @return the name used in URLs and JSON: {@code denied} or {@code admitted} */
        public String label() {
            return this == DENIED ? "denied" : "admitted";
        }

        /**
         * Parses a label.
         *
         * @param label {@code denied} or {@code admitted}
         * @return the value
         * @throws IllegalArgumentException if it is neither
         */
        public static By of(String label) {
            return switch (Objects.requireNonNull(label, "by")) {
                case "denied" -> DENIED;
                case "admitted" -> ADMITTED;
                default -> throw new IllegalArgumentException("by must be denied or admitted but was '" + label + "'");
            };
        }
    }

    /**
     * One client in a {@link Top} list.
     *
     * @param key the key, as the policy keyed the request (see the class comment)
     * @param count requests counted, at least the true number
     * @param error how far {@code count} may exceed the true number: the client made between
     *     {@code count - error} and {@code count} requests
     */
    public record Entry(String key, long count, long error) {
    }

    /**
     * The heaviest clients of a policy over a period, heaviest first (by count, then by smaller
     * error, then by key).
     *
     * @param policy the policy's name
     * @param by what was counted
     * @param minutes the period, in minutes: the current minute and this many before it
     * @param size the counters per minute, and the most entries listed
     * @param total requests counted over the period
     * @param bound the most requests a client not listed can have made over the period: the sum of
     *     the full summaries' smallest counts (at most {@code total / size}), or the count of the
     *     first client cut from the list if that is more
     * @param entries the clients, at most {@code size}
     */
    public record Top(String policy, By by, int minutes, int size, long total, long bound, List<Entry> entries) {
        /**
         * Checks and copies the list.
         *
         * @param policy the policy's name
         * @param by what was counted
         * @param minutes the period, in minutes
         * @param size the counters per minute
         * @param total requests counted over the period
         * @param bound the most a client not listed can have made
         * @param entries the clients, heaviest first; copied
         * @throws NullPointerException if a reference is null
         */
        public Top {
            Objects.requireNonNull(policy, "policy");
            Objects.requireNonNull(by, "by");
            entries = List.copyOf(entries);
        }
    }

    private final String policy;
    private final By by;
    private final int size;
    private final Clock clock;
    private final AtomicReferenceArray<SpaceSaving> ring = new AtomicReferenceArray<>(MINUTES + 1);
    /**
     * The summary counted into last, read first: while the reading is within its minute, a request
     * costs two comparisons and the summary's own work, with no division.
     */
    private volatile SpaceSaving current;

    TopClients(String policy, By by, int size, Clock clock) {
        this.policy = policy;
        this.by = by;
        this.size = size;
        this.clock = clock;
    }

    /**
     * Checks a size given as a setting.
     *
     * @param size counters per policy and minute, {@code 0} for none
     * @param name the setting's name, for the message
     * @return {@code size}
     * @throws IllegalArgumentException if it is outside {@code 0..MAX_SIZE}
     */
    static int checkSize(int size, String name) {
        if (size < 0 || size > MAX_SIZE) {
            throw new IllegalArgumentException(name + " must be 0 (off) to " + MAX_SIZE + " but was " + size);
        }
        return size;
    }

    /** Counts one request of {@code key} in the current minute; a null key is not counted. */
    void record(String key) {
        record(key, MutableDecision.NO_READING);
    }

    /**
     * Counts one request of {@code key} in the minute of {@code nanos}; a null key is not counted.
     *
     * @param nanos the reading of this summary's clock the request was decided at (the store's,
     *     carried by the decision: {@link MutableDecision#nanos()}), or
     *     {@link MutableDecision#NO_READING} to read the clock now
     */
    void record(String key, long nanos) {
        if (key == null) {
            return;
        }
        long now = nanos != MutableDecision.NO_READING ? nanos : clock.nanos();
        SpaceSaving s = current;
        if (s == null || now < s.start || now - s.start >= MINUTE_NANOS) {
            s = summaryAt(now);
        }
        s.offer(key);
    }

    /** The summary of the minute holding {@code now}, created by the first thread that needs it. */
    private SpaceSaving summaryAt(long now) {
        long minute = Math.floorDiv(now, MINUTE_NANOS);
        int i = (int) Math.floorMod(minute, (long) MINUTES + 1);
        SpaceSaving s = ring.get(i);
        if (s == null || s.minute != minute) {
            s = turn(i, s, minute);
        }
        current = s;
        return s;
    }

    /** The summary of a minute that has just begun: the first thread to see it creates it. */
    private SpaceSaving turn(int i, SpaceSaving old, long minute) {
        SpaceSaving fresh = new SpaceSaving(minute, minute * MINUTE_NANOS, size);
        for (;;) {
            if (ring.compareAndSet(i, old, fresh)) {
                return fresh;
            }
            old = ring.get(i);
            if (old != null && old.minute >= minute) {
                return old; // another thread turned it; a reader far behind the clock counts in the newer one
            }
        }
    }

    /**
     * Parses a period as the admin endpoints take it: whole minutes, {@code 1m} to
     * {@value #MINUTES}{@code m}.
     *
     * @param period e.g. {@code 5m}
     * @return the minutes
     * @throws IllegalArgumentException if it is not such a period, naming it
     */
    public static int minutes(String period) {
        Objects.requireNonNull(period, "period");
        if (period.matches("[0-9]{1,2}m")) {
            int m = Integer.parseInt(period.substring(0, period.length() - 1));
            if (m >= 1 && m <= MINUTES) {
                return m;
            }
        }
        throw new IllegalArgumentException("period must be whole minutes from 1m to " + MINUTES + "m (e.g. 5m) but was '"
                + period + "'");
    }

    /** @return the policy's name */
    public String policy() {
        return policy;
    }

    /** @return what is counted */
    public By by() {
        return by;
    }

    /** @return counters per minute, and the most entries a {@link Top} lists */
    public int size() {
        return size;
    }

    /**
     * Returns the heaviest clients over the current minute and the {@code minutes} before it.
     *
     * @param minutes 1 to {@value #MINUTES}
     * @return the list, heaviest first
     * @throws IllegalArgumentException if {@code minutes} is out of range
     */
    public Top top(int minutes) {
        if (minutes < 1 || minutes > MINUTES) {
            throw new IllegalArgumentException("period must be 1 to " + MINUTES + " minutes but was " + minutes);
        }
        long now = Math.floorDiv(clock.nanos(), MINUTE_NANOS);
        List<SpaceSaving> period = new ArrayList<>(minutes + 1);
        for (int i = 0; i <= MINUTES; i++) {
            SpaceSaving s = ring.get(i);
            if (s != null && s.minute <= now && s.minute >= now - minutes) {
                period.add(s);
            }
        }
        return merge(period, minutes);
    }

    private Top merge(List<SpaceSaving> period, int minutes) {
        long floors = 0;
        long total = 0;
        Map<String, long[]> merged = new HashMap<>();
        for (SpaceSaving s : period) {
            long floor = s.floor();
            floors += floor;
            // A key missing from a full summary is counted there at its floor (below): so each held
            // key's count and error here are what the summary says above the floor.
            total += s.read((key, count, error) -> {
                long[] ce = merged.computeIfAbsent(key, k -> new long[2]);
                ce[0] += count - floor;
                ce[1] += error - floor;
            });
        }
        List<Entry> entries = new ArrayList<>(merged.size());
        for (Map.Entry<String, long[]> e : merged.entrySet()) {
            long count = e.getValue()[0] + floors;
            long error = Math.max(0, Math.min(count, e.getValue()[1] + floors));
            entries.add(new Entry(e.getKey(), count, error));
        }
        entries.sort((a, b) -> a.count() != b.count() ? Long.compare(b.count(), a.count())
                : a.error() != b.error() ? Long.compare(a.error(), b.error()) : a.key().compareTo(b.key()));
        long bound = floors;
        if (entries.size() > size) {
            // A client cut from the list counted at most as much as the last one listed.
            bound = Math.max(bound, entries.get(size).count());
            entries = entries.subList(0, size);
        }
        return new Top(policy, by, minutes, size, total, bound, entries);
    }

    @Override
    public String toString() {
        return "TopClients{" + policy + ", by " + by.label() + ", size " + size + '}';
    }
}

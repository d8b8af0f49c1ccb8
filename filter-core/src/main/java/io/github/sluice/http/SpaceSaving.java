package io.github.sluice.http;

import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * One Space-Saving summary (Metwally, Agrawal and El Abbadi, 2005) of a fixed number of counters:
 * the keys seen most often in a stream, each with an overestimated count and the bound of its
 * overestimate, in memory that does not depend on the stream.
 *
 * <h2>The algorithm</h2>
 * {@code m} slots each hold a key, a count and an error. A key already held is counted in its
 * slot. A key not held takes the slot of smallest count {@code c}: its count becomes {@code c + 1}
 * and its error {@code c} (the evicted key may have been counted that often before). Hence, for a
 * stream of {@code N} keys, single-threaded:
 * <ul>
 *   <li>the counts sum to {@code N}, so the smallest count is at most {@code N / m};
 *   <li>a key held has made between {@code count - error} and {@code count} of the requests;
 *   <li>a key not held has made at most the smallest count, so <b>every key with more than
 *       {@code N / m} requests is held</b>, whatever the other keys are: a flood of distinct keys
 *       churns the slots of small count and cannot evict it.
 * </ul>
 *
 * <h2>Concurrency</h2>
 * No lock. A count is a compare-and-set on its slot, checked against the slot's key; taking over a
 * slot first swaps its count for a marker (so that no increment of the old key lands meanwhile),
 * then writes the key and the error, then publishes the count. A thread that finds a slot being
 * taken over does not wait: it goes on as if the key were not held. Two threads that bring in the
 * same new key at the same instant may give it two slots; {@link TopClients} sums them on read.
 * The guarantees above hold exactly for a stream offered by one thread at a time; under
 * contention they hold up to those rare duplicates. Offering allocates nothing.
 */
final class SpaceSaving {

    /** The count of a slot being taken over. */
    private static final long TAKING_OVER = -1;

    /** The minute this summary counts, as {@code floor(nanos / 60 s)}. */
    final long minute;
    /** The clock reading at which that minute starts. */
    final long start;
    /**
     * The slot of the last key counted, tested first: a flood is mostly a few keys, whose next
     * request then costs one comparison instead of a scan. A plain field: a stale hint only costs
     * the scan it would have saved.
     */
    private int hint;
    private final AtomicReferenceArray<String> keys;
    /** Each slot's key's hash: a cheap first test before {@code equals}. */
    private final AtomicIntegerArray hashes;
    private final AtomicLongArray counts;
    private final AtomicLongArray errors;

    SpaceSaving(long minute, long start, int slots) {
        this.minute = minute;
        this.start = start;
        this.keys = new AtomicReferenceArray<>(slots);
        this.hashes = new AtomicIntegerArray(slots);
        this.counts = new AtomicLongArray(slots);
        this.errors = new AtomicLongArray(slots);
    }

    /**
     * Counts one occurrence of {@code key}.
     *
     * @param key the key, not null
     */
    void offer(String key) {
        int h = key.hashCode();
        int slots = counts.length();
        int first = hint;
        for (;;) {
            boolean raced = false;
            for (int n = 0; n < slots; n++) {
                int i = first + n < slots ? first + n : first + n - slots;
                if (hashes.get(i) != h) {
                    continue;
                }
                // The count first: a slot's key is written before its count is published.
                long c = counts.get(i);
                if (c >= 0 && key.equals(keys.get(i))) {
                    if (counts.compareAndSet(i, c, c + 1)) {
                        if (i != first) {
                            hint = i;
                        }
                        return;
                    }
                    raced = true;
                    break;
                }
            }
            if (raced) {
                continue;
            }
            int min = -1;
            long least = Long.MAX_VALUE;
            for (int i = 0; i < slots; i++) {
                long c = counts.get(i);
                if (c >= 0 && c < least) {
                    least = c;
                    min = i;
                    if (c == 0) {
                        break;
                    }
                }
            }
            if (min < 0) {
                Thread.onSpinWait(); // every slot is being taken over this instant: rare, and short
                continue;
            }
            if (counts.compareAndSet(min, least, TAKING_OVER)) {
                keys.set(min, key);
                hashes.set(min, h);
                errors.set(min, least);
                counts.set(min, least + 1);
                hint = min;
                return;
            }
        }
    }

    /** @return the number of slots */
    int slots() {
        return counts.length();
    }

    /**
     * Reads the slots: calls {@code into} with each held key, its count and its error. A slot being
     * taken over at that instant is skipped.
     *
     * @param into the receiver
     * @return the sum of the counts read: the keys counted (single-threaded, exactly {@code N})
     */
    long read(Entries into) {
        long total = 0;
        for (int i = 0; i < counts.length(); i++) {
            long c = counts.get(i);
            String k = keys.get(i);
            long e = errors.get(i);
            if (c > 0 && k != null && counts.get(i) == c) {
                total += c;
                into.accept(k, c, Math.min(e, c));
            }
        }
        return total;
    }

    /**
     * @return the smallest count if every slot is held (what a key not held may have made at
     *     most), else {@code 0}
     */
    long floor() {
        long least = Long.MAX_VALUE;
        for (int i = 0; i < counts.length(); i++) {
            long c = counts.get(i);
            if (c < 0) {
                continue; // being taken over: its count was the least, another slot tells the floor
            }
            if (c == 0 || keys.get(i) == null) {
                return 0;
            }
            least = Math.min(least, c);
        }
        return least == Long.MAX_VALUE ? 0 : least;
    }

    /** Receives the slots of {@link #read}. */
    interface Entries {
        void accept(String key, long count, long error);
    }
}

package io.github.sluice.store;

import io.github.sluice.core.Algorithm;
import io.github.sluice.core.Cell;
import io.github.sluice.core.Clock;
import io.github.sluice.core.MutableDecision;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * The algorithm of a policy whose limit depends on the client's plan: one algorithm of the same
 * kind per plan (and per contract limit added at run time, {@link #add}), and <em>one</em> state
 * per key across all of them. The request's plan is passed as the partition
 * ({@link KeySpace#acquire(String, int, long, MutableDecision)}), by its index in {@link #plans()}.
 *
 * <h2>One state per key, carried when the plan changes</h2>
 * A key's cell holds the state of the plan it was last decided under. A request under another
 * plan first carries that state into a fresh state of the new plan by
 * {@link Inheritance#KEEP_CONSUMED} (the key has used {@code min(c, L1)} of the new limit
 * {@code L1}, as {@code Enforcer.reconfigure} does for a changed policy, with the same code) and
 * retires the old one; a concurrency limit keeps all its permits in flight. So an upgrade takes
 * effect on the next request. What a downgrade to a limit below the key's use cannot hold is
 * kept as a debt, which runs off as the state it came from would have recovered (evenly for
 * token-bucket, gcra and leaky-bucket, at the reset for the others): a downgrade-upgrade cycle,
 * through any plans, finds it again, so a key never gets more by changing plans. Precisely: while
 * the clock stands still, a key is admitted at most the largest limit of the plans it is decided
 * under, however often its plan changes. The carry is exact under concurrency: the old state is read at one word, and retired
 * only if its word is still that one (every change of a cell is a CAS on its word, see
 * {@link Cell}), so a request deciding on the old state at that moment either lands before the
 * read (and is carried) or finds the state retired and decides again under its own plan.
 *
 * <h2>Cost</h2>
 * A request under the key's current plan reads one volatile field more than the plan's own
 * algorithm and allocates nothing; a change of plan allocates the new state once.
 *
 * <p>A request of cost zero (a peek) under another plan reads what the key would carry, and
 * writes nothing. A refund or a release goes to the key's current state: after a change of plan,
 * to the state the admission was carried into.
 *
 * <p>Thread-safe.
 */
public final class PlanAlgorithm extends Algorithm<PlanAlgorithm.PlanCell> {

    /** The most limits one policy may hold: its plans and the distinct contract limits added. */
    public static final int MAX_LIMITS = 256;

    private static final VarHandle CURRENT;

    static {
        try {
            CURRENT = MethodHandles.lookup().findVarHandle(PlanCell.class, "current", Holder.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** A key's cell (word, stamp, holder) and its holder (plan, state, debt, since, reset). */
    private static final long OVERHEAD = objectBytes(1, 1, 1) + objectBytes(3, 1, 1);

    /** The state of a key not decided yet: no plan. */
    private static final Holder EMPTY = new Holder(-1, null);
    /** The state of a key taken out of its registry. */
    private static final Holder GONE = new Holder(-2, null);

    private final List<Algorithm<?>> plans;
    private final int defaultPlan;
    private final long bytesPerKey;
    private final long windowNanos;
    /* The plans, then the limits added; replaced whole (copy on write) by add. */
    private volatile Algorithm<Cell>[] all;
    /* The store's rule for a limit added at run time: why it cannot hold it, or null. */
    private volatile java.util.function.BiFunction<Algorithm<?>, Algorithm<?>, String> refuses;

    /**
     * @param plans one algorithm per plan, all of the same class and kind; not adaptive
     * @param defaultPlan the index of the plan that a request without one (a peek) reads
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code plans} is empty or holds more than
     *     {@link #MAX_LIMITS}, if the algorithms differ in class, if {@code defaultPlan} is out of
     *     range, or if an algorithm is itself a plan algorithm
     */
    @SuppressWarnings("unchecked")
    public PlanAlgorithm(List<? extends Algorithm<?>> plans, int defaultPlan) {
        Objects.requireNonNull(plans, "plans");
        if (plans.isEmpty() || plans.size() > MAX_LIMITS) {
            throw new IllegalArgumentException("plans must hold 1 to " + MAX_LIMITS + " algorithms but held " + plans.size());
        }
        Objects.checkIndex(defaultPlan, plans.size());
        Class<?> kind = plans.get(0).getClass();
        long bytes = 0;
        long window = 0;
        for (Algorithm<?> a : plans) {
            Objects.requireNonNull(a, "plan algorithm");
            if (a.getClass() != kind || a instanceof PlanAlgorithm) {
                throw new IllegalArgumentException("every plan must use the same algorithm, but found "
                        + plans.get(0).kind() + " and " + a.kind());
            }
            bytes = Math.max(bytes, a.bytesPerKey());
            window = Math.max(window, a.windowNanos());
        }
        this.plans = List.copyOf(plans);
        this.defaultPlan = defaultPlan;
        this.all = (Algorithm<Cell>[]) this.plans.toArray(new Algorithm<?>[0]);
        // The key's cell, its holder, and the largest state of a plan: the memory budget's worst case.
        this.bytesPerKey = OVERHEAD + bytes;
        this.windowNanos = window;
    }

    /** @return the plans' algorithms, in index order (the limits added are not listed) */
    public List<Algorithm<?>> plans() {
        return plans;
    }

    /** @return the index of the default plan */
    public int defaultPlan() {
        return defaultPlan;
    }

    /**
     * @param index a plan's or an added limit's index
     * @return its algorithm
     * @throws IndexOutOfBoundsException if there is none
     */
    public Algorithm<?> limitAt(int index) {
        return all[index];
    }

    /** @return the plans and the limits added so far */
    public int size() {
        return all.length;
    }

    /**
     * Adds a limit (a customer's contract) that requests may be decided under, as a plan is, and
     * returns its index. Thread-safe; the request path never waits for it.
     *
     * @param algorithm an algorithm of the plans' class, whose state is no larger than theirs
     *     (the memory budget was reserved for those)
     * @return its index, or {@code -1} if {@link #MAX_LIMITS} limits are held already
     * @throws IllegalArgumentException if the algorithm is of another class, or its state is larger
     */
    @SuppressWarnings("unchecked")
    public synchronized int add(Algorithm<?> algorithm) {
        Objects.requireNonNull(algorithm, "algorithm");
        if (algorithm.getClass() != plans.get(0).getClass()) {
            throw new IllegalArgumentException("a limit must use the plans' algorithm " + plans.get(0).kind()
                    + " but was " + algorithm.kind());
        }
        if (algorithm.bytesPerKey() > bytesPerKey - OVERHEAD) {
            throw new IllegalArgumentException("a limit's state must be no larger than the plans' ("
                    + algorithm + " is larger than every plan's)");
        }
        Algorithm<Cell>[] now = all;
        for (int i = 0; i < now.length; i++) {
            if (now[i].equals(algorithm)) {
                return i;
            }
        }
        java.util.function.BiFunction<Algorithm<?>, Algorithm<?>, String> rule = refuses;
        if (rule != null) {
            for (Algorithm<Cell> a : now) {
                String why = rule.apply(a, algorithm);
                if (why == null) {
                    why = rule.apply(algorithm, a);
                }
                if (why != null) {
                    throw new IllegalArgumentException("limit " + algorithm + " cannot share a key's state with "
                            + a + " in this store: " + why);
                }
            }
        }
        if (now.length >= MAX_LIMITS) {
            return -1;
        }
        Algorithm<Cell>[] next = Arrays.copyOf(now, now.length + 1);
        next[now.length] = (Algorithm<Cell>) algorithm;
        all = next;
        return now.length;
    }

    /**
     * Sets the store's rule for the limits {@link #add} may add: a store whose keys keep one state
     * read under each plan's parameters (Redis) refuses a limit that would read some key's state as
     * more than it has. Called by the store when it binds this algorithm.
     *
     * @param refuses given a limit in force and a new one, why a key's state cannot pass from the
     *     first to the second, or {@code null} if it can
     */
    public void refuseLimitsBy(java.util.function.BiFunction<Algorithm<?>, Algorithm<?>, String> refuses) {
        this.refuses = Objects.requireNonNull(refuses, "refuses");
    }

    @Override
    public String kind() {
        return plans.get(0).kind();
    }

    /** @return the default plan's limit */
    @Override
    public long limit() {
        return plans.get(defaultPlan).limit();
    }

    /** @return the longest window of the plans: how long a state may matter */
    @Override
    public long windowNanos() {
        return windowNanos;
    }

    @Override
    public boolean concurrency() {
        return plans.get(0).concurrency();
    }

    @Override
    public PlanCell newCell(long now) {
        return new PlanCell();
    }

    @Override
    public int acquire(PlanCell cell, long now, long cost, MutableDecision out) {
        return decide(cell, now, null, cost, Algorithm.NO_PARTITION, out);
    }

    @Override
    public int acquireOrWait(PlanCell cell, long now, Clock clock, long cost, MutableDecision out) {
        return decide(cell, now, clock, cost, Algorithm.NO_PARTITION, out);
    }

    @Override
    public int acquireOrWait(PlanCell cell, long now, Clock clock, long cost, int partition, MutableDecision out) {
        return decide(cell, now, clock, cost, partition, out);
    }

    private int decide(PlanCell cell, long now, Clock clock, long cost, int plan, MutableDecision out) {
        Algorithm<Cell>[] table = all;
        if (plan >= table.length) {
            plan = Algorithm.NO_PARTITION;
        }
        while (true) {
            Holder h = cell.current;
            if (h == GONE) {
                return RETIRED;
            }
            if (h.cell != null && (h.plan == plan || plan < 0)) {
                Algorithm<Cell> a = table[h.plan];
                int r = clock == null ? a.acquire(h.cell, now, cost, out) : a.acquireOrWait(h.cell, now, clock, cost, out);
                if (r != RETIRED) {
                    return r;
                }
                // Retired by a change of plan (which installs the next state at once) or by the
                // registry (which retires this cell next): look again.
                Thread.onSpinWait();
                continue;
            }
            int to = plan < 0 ? defaultPlan : plan;
            if (cost == 0) {
                return peek(h, table, to, now, out);
            }
            move(cell, h, table, to, now, out);
        }
    }

    /** What a request of cost zero under plan {@code to} is told: the carried state, written nowhere. */
    private static int peek(Holder h, Algorithm<Cell>[] table, int to, long now, MutableDecision out) {
        Holder next = h.cell == null ? null : carried(h, table, to, now, out);
        Algorithm<Cell> a = table[to];
        int r = a.acquire(next == null ? a.newCell(now) : next.cell, now, 0, out);
        return r == RETIRED ? DENIED : r;
    }

    /**
     * Moves the key to plan {@code to}: carries its state, retires the old one if it is unchanged
     * since it was read, and installs the new one. Returns without doing anything if another
     * thread changed the state meanwhile; the caller looks again.
     */
    private static void move(PlanCell cell, Holder h, Algorithm<Cell>[] table, int to, long now, MutableDecision d) {
        if (h.cell == null) {
            CURRENT.compareAndSet(cell, h, new Holder(to, table[to].newCell(now), 0, now, 0));
            return;
        }
        long word = h.cell.word();
        if (word == Cell.RETIRED) {
            Thread.onSpinWait();
            return;
        }
        Holder next = carried(h, table, to, now, d);
        if (next != null && h.cell.retire(word)) {
            CURRENT.compareAndSet(cell, h, next);
        }
    }

    /**
     * The key's state under plan {@code to}, carried from {@code h}: a fresh state of the new plan
     * charged with what the key has used, {@code min(used, L1)} ({@link Inheritance#KEEP_CONSUMED}),
     * where "used" is the most the key is known to have used: of its current plan, or more, if an
     * earlier change had to leave some of it out (a downgrade to a limit below it). That excess is
     * kept in the holder as a debt that runs off as the state it came from would have (evenly for
     * the rate algorithms, at the end of the window for the others), so a downgrade-upgrade cycle
     * finds it again. {@code null} if the old state was retired meanwhile.
     */
    private static Holder carried(Holder h, Algorithm<Cell>[] table, int to, long now, MutableDecision d) {
        return carried(h, table[h.plan], table[to], to, now, d);
    }

    private static Holder carried(Holder h, Algorithm<Cell> from, Algorithm<Cell> next, int to, long now,
            MutableDecision d) {
        if (from.concurrency()) {
            // Permits in flight are held by running requests: all of them are kept, whatever the
            // new limit, or their releases would free permits that others hold.
            Cell fresh = next.newCell(now);
            long held = h.cell.word();
            if (held == Cell.RETIRED) {
                return null;
            }
            if (held != fresh.word()) {
                fresh.casWord(fresh.word(), held);
            }
            return new Holder(to, fresh, 0, now, 0);
        }
        if (from.acquire(h.cell, now, 0, d) == RETIRED) {
            return null;
        }
        long used = Math.max(0, d.limit() - Math.max(0, d.remaining()));
        long reset = Math.max(0, d.resetNanos());
        long owed = h.owed(now, linear(from));
        long known = Math.max(used, owed);
        if (owed > used) {
            reset = Math.max(0, h.debtReset - (now - h.debtAt));
        }
        Cell fresh = next.newCell(now);
        next.acquire(fresh, now, 0, d);
        long carried = Inheritance.KEEP_CONSUMED.carried(Math.max(known, 1), Math.max(known, 1) - known,
                Math.max(1, d.limit()));
        if (carried > 0 && next.acquire(fresh, now, carried, d) != ADMITTED) {
            // A fresh state that cannot give that many at once gives all it has: stricter, never looser.
            long all = Math.min(carried, d.remaining());
            if (all > 0) {
                next.acquire(fresh, now, all, d);
            }
        }
        return new Holder(to, fresh, known, now, reset);
    }

    /** Whether a state of {@code a} gives back what was used evenly over its reset time (else all at its end). */
    private static boolean linear(Algorithm<?> a) {
        String kind = a.kind();
        return kind.equals("token-bucket") || kind.equals("gcra") || kind.equals("leaky-bucket");
    }

    /**
     * A key's state carried from a previous plan table of the policy ({@code Enforcer.reconfigure}
     * changed it): the key stays on the plan whose limit is unchanged (an equal algorithm), or the
     * default plan, with what it used and its debt, as a change of plan carries them
     * ({@link Inheritance#KEEP_CONSUMED}, whatever the reconfiguration's strategy). Not kept
     * anywhere.
     *
     * @return the new state, or {@code null} if the key carries nothing
     */
    PlanCell carriedFrom(PlanAlgorithm old, PlanCell cell, long now, MutableDecision d) {
        Holder h = cell.current;
        if (h.cell == null) {
            return null;
        }
        Algorithm<Cell> was = old.all[h.plan];
        Algorithm<Cell>[] table = all;
        int to = defaultPlan;
        for (int i = 0; i < table.length; i++) {
            if (table[i].equals(was)) {
                to = i;
                break;
            }
        }
        Holder next = carried(h, was, table[to], to, now, d);
        if (next == null || (next.debt == 0 && table[to].isFresh(next.cell, now))) {
            return null;
        }
        PlanCell carried = new PlanCell();
        carried.current = next;
        return carried;
    }

    @Override
    public long release(PlanCell cell, long now, long cost, long receipt, boolean dropped) {
        while (true) {
            Holder h = cell.current;
            if (h.cell == null) {
                return cost;
            }
            long unmatched = all[h.plan].release(h.cell, now, cost, receipt, dropped);
            if (unmatched == 0 || !h.cell.retired() || cell.current == h) {
                return unmatched;
            }
            // The permits moved with a change of plan: release them where they are now.
        }
    }

    @Override
    public long release(PlanCell cell, long now, long cost) {
        return release(cell, now, cost, MutableDecision.NO_RECEIPT, false);
    }

    @Override
    public void refund(PlanCell cell, long cost, long receipt, Clock clock) {
        Holder h = cell.current;
        if (h.cell != null) {
            all[h.plan].refund(h.cell, cost, receipt, clock);
        }
    }

    @Override
    public boolean isFresh(PlanCell cell, long now) {
        Holder h = cell.current;
        // A debt still running keeps the key: dropping it would forget what a downgrade held back.
        return h.cell == null || (all[h.plan].isFresh(h.cell, now) && h.owed(now, linear(all[h.plan])) == 0);
    }

    @Override
    public boolean retireIfFresh(PlanCell cell, long now) {
        while (true) {
            Holder h = cell.current;
            if (h == GONE) {
                return false;
            }
            if (h.cell == null) {
                if (CURRENT.compareAndSet(cell, h, GONE)) {
                    return cell.retire(cell.word());
                }
                continue;
            }
            if (h.owed(now, linear(all[h.plan])) > 0 || !all[h.plan].retireIfFresh(h.cell, now)) {
                if (h.cell.retired() && cell.current != h) {
                    continue; // moved to another plan meanwhile: ask the new state
                }
                return false;
            }
            CURRENT.setVolatile(cell, GONE);
            return cell.retire(cell.word());
        }
    }

    @Override
    public boolean retire(PlanCell cell) {
        while (true) {
            Holder h = cell.current;
            if (h == GONE) {
                return false;
            }
            if (h.cell == null ? CURRENT.compareAndSet(cell, h, GONE) : all[h.plan].retire(h.cell)) {
                CURRENT.setVolatile(cell, GONE);
                return cell.retire(cell.word());
            }
            Thread.onSpinWait(); // a change of plan is installing the next state
        }
    }

    @Override
    public long bytesPerKey() {
        return bytesPerKey;
    }

    /**
     * @param cell a key's cell
     * @return the index of the plan or limit it was last decided under, or {@code -1} if none
     */
    public int planOf(PlanCell cell) {
        return cell.current.plan;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PlanAlgorithm p && p.defaultPlan == defaultPlan && p.plans.equals(plans);
    }

    @Override
    public int hashCode() {
        return plans.hashCode() * 31 + defaultPlan;
    }

    @Override
    public String toString() {
        return "PlanAlgorithm{" + plans + ", default=" + defaultPlan + '}';
    }

    /** A key's state: which plan it is under, and that plan's state. */
    public static final class PlanCell extends Cell {
        private volatile Holder current = EMPTY;

        PlanCell() {
            super(0);
        }
    }

    /**
     * Immutable: a plan's index and its state, replaced whole when the plan changes, and the most
     * the key was known to have used at that change (its debt: see {@link #carried}).
     */
    private static final class Holder {
        final int plan;
        final Cell cell;
        final long debt;
        final long debtAt;
        final long debtReset;

        Holder(int plan, Cell cell, long debt, long debtAt, long debtReset) {
            this.plan = plan;
            this.cell = cell;
            this.debt = debt;
            this.debtAt = debtAt;
            this.debtReset = debtReset;
        }

        Holder(int plan, Cell cell) {
            this(plan, cell, 0, 0, 0);
        }

        /** What is left of the debt at {@code now}: all of it until its reset, or its share, evenly. */
        long owed(long now, boolean evenly) {
            long elapsed = now - debtAt;
            if (debt <= 0 || elapsed >= debtReset) {
                return 0;
            }
            if (!evenly || elapsed <= 0) {
                return debt;
            }
            double left = (double) (debtReset - elapsed) / debtReset;
            return (long) Math.ceil(debt * left);
        }
    }
}

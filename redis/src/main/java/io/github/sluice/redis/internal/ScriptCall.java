package io.github.sluice.redis.internal;

import io.github.sluice.core.Clock;
import io.github.sluice.store.StoreLatency;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.CommandOutput;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.netty.buffer.ByteBuf;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.util.concurrent.CancellationException;
import java.util.concurrent.locks.LockSupport;

/**
 * One run of the Sluice script, as the client sends it: {@code FCALL} of the library's function,
 * or {@code EVALSHA} of the script's digest (or {@code EVAL} of its source after a {@code
 * NOSCRIPT} or a missing function), with the keys and arguments of the parts of one group. The
 * three commands take the same arguments after their first.
 *
 * <p>Built for the decision path: the call writes its own bytes into the client's buffer (the
 * function's name or the script's digest, the keys' heads and tags, each binding's parameters,
 * encoded once), so that no
 * string, argument list or codec is involved; the reply's integers go straight into a
 * {@code long[]}; and the request thread waits by parking until the client's I/O thread completes
 * the call, with no future in between. A call is three small objects and an array.
 *
 * <p>A call with a callback (a release, a refund, a renewal) is not awaited: the callback runs
 * once, on the client's I/O thread, or on the dispatching thread if the client refused the call at
 * once (disconnected).
 *
 * <p>Thread-safe: completed by the client's threads, awaited by one request thread.
 */
public final class ScriptCall extends Command<String, String, long[]> {

    /** The script's clock argument for Redis {@code TIME}. */
    public static final long REDIS_TIME = Long.MIN_VALUE;
    /** Values per policy in the reply of an acquisition. */
    public static final int REPLY = 6;

    /** How a call names what Redis runs. */
    public enum Via {
        /** {@code EVALSHA <digest>}: the script, from the server's script cache. */
        EVALSHA(CommandType.EVALSHA),
        /** {@code FCALL <function>}: the library's function, loaded by {@code FUNCTION LOAD}. */
        FCALL(CommandType.FCALL),
        /** {@code EVAL <source>}: the script's text, which Redis also caches. */
        EVAL(CommandType.EVAL);

        final CommandType type;

        Via(CommandType type) {
            this.type = type;
        }
    }

    /**
     * The operations a store's {@link StoreLatency} times, in index order: {@code acquire} (op
     * {@code 'a'}, or a coalesced batch of acquisitions, {@code 'b'} and {@code 'c'}), {@code release} ({@code 'r'}, a release or a refund), {@code renew}
     * ({@code 'n'}) and {@code probe} ({@code 'p'}).
     */
    public static final String[] OPERATIONS = {"acquire", "release", "renew", "probe"};

    /** Told once when a call completes, however it completes. */
    public interface Callback {
        /**
         * The call completed.
         *
         * @param call the call
         */
        void completed(ScriptCall call);
    }

    /** Redis 7's answer to an {@code FCALL} of a function it does not have. */
    static final String NO_FUNCTION = "ERR Function not found";

    /** {@link #state}: the call finished (completed, failed or cancelled); told once. */
    private static final int FINISHED = 1;
    /** {@link #state}: a member of a batch, taken from its lane to be sent ({@link #take}). */
    private static final int TAKEN = 2;
    /** {@link #state}: a member of a batch whose request gave up while queued ({@link #abandon}). */
    private static final int ABANDONED = 4;
    private static final Via[] VIAS = Via.values();

    private static final byte[] EMPTY = Resp.encoded("");
    private static final byte[][] OPS = new byte[128][];
    private static final VarHandle STATE;

    static {
        for (char op : new char[] {'a', 'b', 'c', 'l', 'r', 'n', 'p'}) {
            OPS[op] = Resp.encoded(String.valueOf(op));
        }
        try {
            STATE = MethodHandles.lookup().findVarHandle(ScriptCall.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Script script;
    /** The {@link Via}'s ordinal: a byte fits the gap after the superclass's status byte. */
    private final byte via;
    private final char op;
    private final long now;
    private final Part[] parts;
    private final int group;
    private final int count;
    private final Callback callback;
    private volatile Thread waiter;
    /*
     * A call is 80 bytes, as before it was timed: the two fields below took the place of the
     * probe's argument (now its part's cost).
     */
    /** Times this call's round trip, or {@code null}; set with {@link #sentMicros} before it is sent. */
    private Timing timing;
    /**
     * The clock's reading when the call was sent, in microseconds, cut to an int: a difference
     * of two such readings is exact for round trips under 35 minutes, and the histogram's first
     * bucket is 100 µs.
     */
    private int sentMicros;
    /** {@link #FINISHED}, {@link #TAKEN}, {@link #ABANDONED}: bits, set once each. */
    @SuppressWarnings("unused") // through STATE
    private volatile int state;
    /*
     * Coalescing keeps a call at 80 bytes too: what a batch decides and the hook of a lane's
     * holder share one field (a call is one or the other, or neither), its queue state shares
     * the finished flag's int, and the Via is a byte in a gap of the header.
     */
    /**
     * A batch's {@link Batch}, set when it is made; the {@link Callback} told first when a lane's
     * holder finishes ({@link #holdLane}), set before it is sent; otherwise {@code null}.
     */
    private Object coalescing;

    /**
     * A batch's members, the requests it decides in order ({@code members[from..to)}), its lane,
     * and whose presence in the lane its completion ends ({@code null} for all but a lane's last
     * batch).
     */
    private record Batch(ScriptCall[] members, int from, int to, int lane, ScriptCall marker) {
    }

    /** @return what this batch decides, or {@code null} if this is not a batch */
    private Batch batch() {
        return coalescing instanceof Batch b ? b : null;
    }

    private ScriptCall(Script script, Via via, char op, long now, Part[] parts, int group,
            int count, boolean cluster, Callback callback) {
        this(script, via, op, now, parts, group, count, cluster, callback, null);
    }

    private ScriptCall(Script script, Via via, char op, long now, Part[] parts, int group,
            int count, boolean cluster, Callback callback, Batch batch) {
        super(via.type, new Reply(op == 'c' ? (REPLY + 1) * (batch.to - batch.from)
                : op == 'a' || op == 'b' || op == 'l' ? count * REPLY * (batch == null ? 1 : batch.to - batch.from) : 0));
        this.script = script;
        this.via = (byte) via.ordinal();
        this.op = op;
        this.now = now;
        this.parts = parts;
        this.group = group;
        this.count = count;
        this.callback = callback;
        this.coalescing = batch;
        if (cluster) {
            // The cluster client routes a call by its first key; a standalone one never looks.
            this.args = new Route(this);
        }
    }

    /**
     * A call for the parts of one group.
     *
     * @param script the script
     * @param via {@link Via#FCALL} or {@link Via#EVALSHA} ({@link Via#EVAL} is for a retry, see
     *     {@link #withSource()})
     * @param op {@code 'a'} acquire, {@code 'r'} release or refund, {@code 'n'} renew
     * @param now the client clock in microseconds, or {@link #REDIS_TIME}
     * @param parts the request's parts, every one with its tag set
     * @param group the group whose parts this call carries
     * @param cluster whether the connection is to a cluster, which routes calls by key
     * @param callback told when the call completes, or {@code null} if it is awaited
     * @return the call, not yet sent
     */
    public static ScriptCall of(Script script, Via via, char op, long now, Part[] parts, int group,
            boolean cluster, Callback callback) {
        int count = 0;
        for (Part p : parts) {
            count += p.group == group ? 1 : 0;
        }
        return new ScriptCall(script, via, op, now, parts, group, count, cluster, callback);
    }

    /**
     * A batch: one call deciding the acquisitions {@code members[from..to)} (op {@code 'a'},
     * every one on the same keys, see {@link #sameKeys}) one after the other, in that order, each
     * all or nothing as its own call would be; its reply is theirs, one after the other, which
     * {@link #completeMembers} hands to each.
     *
     * @param script the script
     * @param via {@link Via#FCALL} or {@link Via#EVALSHA}
     * @param now the clock argument: the latest of the members' ({@link #REDIS_TIME} if theirs is)
     * @param members the members
     * @param from the first member's index
     * @param to after the last member's index
     * @param cluster whether the connection is to a cluster
     * @param callback told when the batch completes
     * @param lane the lane's index
     * @param marker whose presence in the lane the batch's completion ends, or {@code null}
     * @return the call, not yet sent
     */
    public static ScriptCall batch(Script script, Via via, long now, ScriptCall[] members, int from,
            int to, boolean cluster, Callback callback, int lane, ScriptCall marker) {
        ScriptCall first = members[from];
        char op = compact(members, from, to) ? 'c' : 'b';
        ScriptCall b = new ScriptCall(script, via, op, now, first.parts, first.group, first.count,
                cluster, callback, new Batch(members, from, to, lane, marker));
        return b;
    }

    /**
     * @return whether the members differ in their costs only (one policy, the same binding, whose
     *     parameters are the same on every call, no receipt): then the batch is compact, op {@code
     *     'c'}, the shared values once and then each member's cost
     */
    private static boolean compact(ScriptCall[] members, int from, int to) {
        Part first = members[from].part();
        if (members[from].count != 1 || !first.binding.sameParamsEveryCall()) {
            return false;
        }
        for (int i = from; i < to; i++) {
            Part p = members[i].part();
            if (members[i].count != 1 || p.binding != first.binding
                    || p.receipt != io.github.sluice.core.MutableDecision.NO_RECEIPT) {
                return false;
            }
        }
        return true;
    }

    /** @return the first part of this call's group */
    private Part part() {
        for (Part p : parts) {
            if (p.group == group) {
                return p;
            }
        }
        throw new IllegalStateException("no part in group " + group);
    }

    /**
     * The probe's call: runs the script, which writes the part's key with a TTL, proving that the
     * script is loaded (or loads it) and that the key's master accepts writes.
     *
     * @param script the script
     * @param via {@link Via#FCALL} or {@link Via#EVALSHA}
     * @param key the probe key's part
     * @param ttlMillis the probe key's time to live, or 0 to run the script without writing
     * @param cluster whether the connection is to a cluster
     * @return the call, not yet sent
     */
    public static ScriptCall probe(Script script, Via via, Part key, long ttlMillis, boolean cluster) {
        // The TTL travels as the part's cost, which a probe has no other use for
        Part p = new Part(null, key.head, ttlMillis);
        p.key = key.key;
        p.group = key.group;
        return new ScriptCall(script, via, 'p', REDIS_TIME, new Part[] {p}, p.group, 1, cluster, null);
    }

    /**
     * @return the same call with the script's source ({@code EVAL}), after a {@code NOSCRIPT} or a
     *     missing function
     */
    public ScriptCall withSource() {
        return new ScriptCall(script, Via.EVAL, op, now, parts, group, count, args != null, callback,
                batch());
    }

    /**
     * Times this call: from now (call it just before sending) until Redis's reply is read, an
     * error reply included; a call that ends without a reply (the connection failed, or it was
     * cancelled) is not timed. The fields are published with the call to the client's I/O
     * thread, which completes it.
     *
     * @param timing where to record the round trip, under this call's operation, and the clock
     */
    public void timed(Timing timing) {
        this.sentMicros = micros(timing.clock());
        this.timing = timing;
    }

    private static int micros(Clock clock) {
        return (int) (clock.nanos() / 1000);
    }

    /**
     * Where a store records its calls' round trips, and the real clock that times them.
     *
     * @param latency the store's histogram, by {@link #OPERATIONS}
     * @param clock the real clock
     */
    public record Timing(StoreLatency latency, Clock clock) {
    }

    /** @return whether this is an acquisition (op {@code 'a'}), which a batch may carry */
    public boolean acquisition() {
        return op == 'a' && !(coalescing instanceof Batch);
    }

    /** @return how many keys (policies of one request) the call names */
    public int keys() {
        return count;
    }

    /** @return the clock argument */
    public long now() {
        return now;
    }

    /**
     * @param other another acquisition
     * @return whether both name the same keys, in the same order: the same policies' keys of the
     *     same client keys, so that one batch may decide both
     */
    public boolean sameKeys(ScriptCall other) {
        if (other.count != count) {
            return false;
        }
        int j = -1;
        for (Part p : parts) {
            if (p.group != group) {
                continue;
            }
            do {
                j++;
            } while (other.parts[j].group != other.group);
            Part q = other.parts[j];
            // One store's parts: the same policy's head (one object per binding, or an equal
            // whole key) and the same client key name the same Redis key
            if (!p.head.sameAs(q.head) || !java.util.Objects.equals(p.key, q.key)) {
                return false;
            }
        }
        return true;
    }

    /**
     * @return a spread of this acquisition's keys (its first key's policy head and client key),
     *     from which a coalescing lane is chosen
     */
    public int keyHash() {
        for (Part p : parts) {
            if (p.group == group) {
                // String caches its hash: after the first call, no pass over the key
                int h = p.head.spread() * 31 + (p.key == null ? 0 : p.key.hashCode());
                return h ^ (h >>> 15);
            }
        }
        return 0;
    }

    /**
     * Makes this call the holder of a coalescing lane: {@code hook} is told first when it
     * finishes. Before the call is sent.
     *
     * @param hook told when the call finishes
     */
    public void holdLane(Callback hook) {
        this.coalescing = hook;
    }

    /** @return the index of the lane a batch decides for ({@code 0} for another call) */
    public int laneIndex() {
        Batch batch = batch();
        return batch == null ? 0 : batch.lane;
    }

    /** @return whose presence in the lane this call's completion ends, or {@code null} */
    public ScriptCall marker() {
        Object c = coalescing;
        return c instanceof Batch b ? b.marker : c != null ? this : null;
    }

    /** @return a batch's members (from {@link #from()} to {@link #to()}), or {@code null} */
    public ScriptCall[] members() {
        Batch batch = batch();
        return batch == null ? null : batch.members;
    }

    /** @return the index of a batch's first member */
    public int from() {
        Batch batch = batch();
        return batch == null ? 0 : batch.from;
    }

    /** @return after the index of a batch's last member */
    public int to() {
        Batch batch = batch();
        return batch == null ? 1 : batch.to;
    }

    /**
     * Takes this queued acquisition into a batch, unless its request gave up on it first.
     *
     * @return whether it was taken (it will be sent)
     */
    public boolean take() {
        while (true) {
            int s = state;
            if ((s & (TAKEN | ABANDONED)) != 0) {
                return false;
            }
            if (STATE.compareAndSet(this, s, s | TAKEN)) {
                return true;
            }
        }
    }

    /**
     * The request gave up on this call (its deadline passed): if it is still queued in a lane, it
     * will not be sent. A call already sent is unaffected.
     */
    public void abandon() {
        while (true) {
            int s = state;
            if ((s & (TAKEN | ABANDONED)) != 0 || STATE.compareAndSet(this, s, s | ABANDONED)) {
                return;
            }
        }
    }

    /**
     * Completes every member of this batch, on the batch's completion: each with its own share of
     * the reply, or with the batch's failure. A compact batch's reply (op {@code 'c'}, see {@code
     * main.lua}) holds, per member, a mask and the values that differ from the member before's;
     * it is checked whole first.
     *
     * <p>{@code next} (which sends the lane's next batch) is told after the members whose threads wait
     * are woken and before the members with a callback (asynchronous acquisitions, which may run
     * the caller's code) are completed: the woken threads decide again at once, and most of them
     * join the next batch rather than the one after it (at 16 and 64 threads on one key, half the
     * round trips; docs/PERFORMANCE.md). On a failure, {@code next} is told first.
     *
     * @param next told with this batch when the lane's next batch may be sent
     */
    public void completeMembers(Callback next) {
        Batch b = batch();
        ScriptCall[] members = b.members;
        Reply whole = (Reply) getOutput();
        boolean answered = exception == null && !isCancelled() && whole.getError() == null;
        if (answered && (op == 'c' ? compactWellFormed(whole, b.to - b.from)
                : !whole.malformed && whole.count == whole.get().length)) {
            long[] values = whole.get();
            long[] before = null;
            for (int i = b.from, at = 0; i < b.to; i++) {
                Reply r = (Reply) members[i].getOutput();
                if (op == 'c') {
                    int mask = (int) values[at++];
                    for (int f = 0; f < REPLY; f++) {
                        r.set((mask & (1 << f)) != 0 ? values[at++] : before == null ? 0 : before[f]);
                    }
                    before = r.get();
                } else {
                    for (int f = 0; f < r.get().length; f++) {
                        r.set(values[at++]);
                    }
                }
            }
            for (int i = b.from; i < b.to; i++) {
                if (members[i].callback == null) {
                    members[i].complete();
                }
            }
            next.completed(this);
            for (int i = b.from; i < b.to; i++) {
                if (members[i].callback != null) {
                    members[i].complete();
                }
            }
            return;
        }
        next.completed(this);
        for (int i = b.from; i < b.to; i++) {
            members[i].fail(this);
        }
    }

    /** @return whether a compact batch's reply decodes to exactly {@code members} members */
    private static boolean compactWellFormed(Reply whole, int members) {
        if (whole.malformed) {
            return false;
        }
        long[] values = whole.get();
        int at = 0;
        for (int i = 0; i < members; i++) {
            if (at >= whole.count || values[at] < 0 || values[at] >= 1 << REPLY) {
                return false;
            }
            at += 1 + Long.bitCount(values[at]);
        }
        return at == whole.count;
    }

    /**
     * Completes this member of a batch with the batch's failure: its exception, its cancellation,
     * Redis's error reply, or a reply of the wrong shape.
     *
     * @param batch the failed batch
     */
    private void fail(ScriptCall batch) {
        if (batch.exception != null) {
            completeExceptionally(batch.exception);
            return;
        }
        if (batch.isCancelled()) {
            cancel();
            return;
        }
        String error = batch.getOutput().getError();
        if (error != null) {
            getOutput().setError(error);
            complete();
            return;
        }
        completeExceptionally(new IllegalStateException("unexpected reply from the Sluice script: "
                + batch.getOutput()));
    }

    /** @return the group of parts this call carries */
    public int group() {
        return group;
    }

    /** @return whether this call sends the script's source rather than its digest */
    public boolean sendsSource() {
        return via() == Via.EVAL;
    }

    /** @return how this call names what Redis runs */
    public Via via() {
        return VIAS[via];
    }

    @Override
    public void encode(ByteBuf buf) {
        int requests = to() - from();
        int values = op == 'p' ? 1 : op == 'c' ? Binding.STRIDE + requests : count * Binding.STRIDE * requests;
        Resp.array(buf, 3 + count + 2 + values);
        Via v = via();
        buf.writeBytes(v == Via.FCALL ? script.fcallHead()
                : v == Via.EVALSHA ? script.evalshaHead() : script.evalHead());
        Resp.bulk(buf, count);
        for (Part p : parts) {
            if (p.group == group) {
                KeyNames.write(buf, p);
            }
        }
        if (now == REDIS_TIME) {
            buf.writeBytes(EMPTY);
        } else {
            Resp.bulk(buf, now);
        }
        buf.writeBytes(OPS[op]);
        if (op == 'p') {
            Resp.bulk(buf, parts[0].cost);
            return;
        }
        Batch batch = batch();
        if (op == 'c') {
            ScriptCall[] members = batch.members;
            members[batch.from].part().binding.encodeShared(buf, members[batch.from].part().cost);
            for (int i = batch.from; i < batch.to; i++) {
                Resp.bulk(buf, members[i].part().cost);
            }
            return;
        }
        if (batch != null) {
            for (int i = batch.from; i < batch.to; i++) {
                batch.members[i].encodeValues(buf);
            }
            return;
        }
        encodeValues(buf);
    }

    private void encodeValues(ByteBuf buf) {
        for (Part p : parts) {
            if (p.group == group) {
                p.binding.encode(buf, p.cost, p.id, p.first, p.receipt, p.at);
            }
        }
    }

    @Override
    public void complete() {
        super.complete();
        finish(true);
    }

    @Override
    public boolean completeExceptionally(Throwable throwable) {
        super.completeExceptionally(throwable);
        finish(false);
        return true;
    }

    @Override
    public void cancel() {
        super.cancel();
        finish(false);
    }

    /** @param answered whether Redis replied (then the round trip is timed) */
    private void finish(boolean answered) {
        if (((int) STATE.getAndBitwiseOr(this, FINISHED) & FINISHED) != 0) {
            return;
        }
        // Recorded before the waiter wakes: a decision that returned has its round trip counted.
        Timing t = timing;
        if (answered && t != null) {
            t.latency().record(operation(op), (micros(t.clock()) - sentMicros) * 1000L);
        }
        if (coalescing instanceof Callback l) {
            l.completed(this);
        }
        Thread w = waiter;
        if (w != null) {
            LockSupport.unpark(w);
        }
        if (callback != null) {
            callback.completed(this);
        }
    }

    /**
     * Waits until the call completes or the deadline passes.
     *
     * @param deadline the deadline on {@code clock}
     * @param clock the real clock
     * @return whether the call completed
     * @throws InterruptedException if the waiting thread is interrupted (the flag is cleared)
     */
    public boolean await(long deadline, Clock clock) throws InterruptedException {
        if (isDone()) {
            return true;
        }
        waiter = Thread.currentThread();
        while (!isDone()) {
            long left = deadline - clock.nanos();
            if (left <= 0) {
                return isDone();
            }
            LockSupport.parkNanos(this, left);
            if (Thread.interrupted()) {
                throw new InterruptedException("interrupted while waiting for Redis");
            }
        }
        return true;
    }

    /** @return the index in {@link #OPERATIONS} of a call's op */
    static int operation(char op) {
        return switch (op) {
            case 'a', 'b', 'c', 'l' -> 0; // a batch, a lease's take: each one acquisition
            case 'r' -> 1;
            case 'n' -> 2;
            default -> 3;
        };
    }

    /** @return whether Redis answered that it does not have the script cached */
    public boolean noScript() {
        String e = getOutput().getError();
        return exception == null && e != null && e.startsWith("NOSCRIPT");
    }

    /**
     * @return whether Redis answered an {@code FCALL} that it has no such function (the library
     *     was flushed, or the node is new to a cluster)
     */
    public boolean noFunction() {
        String e = getOutput().getError();
        return via() == Via.FCALL && exception == null && e != null && e.startsWith(NO_FUNCTION);
    }

    /** @return whether Redis does not have what the call names: {@link #noScript} or {@link #noFunction} */
    public boolean missing() {
        return noScript() || noFunction();
    }

    /**
     * @return why the completed call failed, or {@code null} if Redis ran the script and its
     *     reply has the expected shape
     */
    public Throwable failure() {
        if (exception != null) {
            return exception;
        }
        if (isCancelled()) {
            return new CancellationException("the call was cancelled (connection closed)");
        }
        String error = getOutput().getError();
        if (error != null) {
            return error.startsWith("NOSCRIPT") ? new RedisNoScriptException(error)
                    : new RedisCommandExecutionException(error);
        }
        Reply r = (Reply) getOutput();
        if (r.malformed || r.count != r.get().length) {
            return new IllegalStateException("unexpected reply from the Sluice script: " + r);
        }
        return null;
    }

    /** @return the reply's integers: {@value #REPLY} per part of an acquisition, in part order */
    public long[] values() {
        return getOutput().get();
    }

    @Override
    public String toString() {
        Batch batch = batch();
        return "ScriptCall{" + via() + ", op " + op + ", " + count + " key(s)"
                + (batch != null ? ", " + (batch.to - batch.from) + " requests" : "") + '}';
    }

    /** Collects the script's integers. */
    private static final class Reply extends CommandOutput<String, String, long[]> {
        int count;
        boolean malformed;

        Reply(int expected) {
            super(StringCodec.UTF8, new long[expected]);
        }

        @Override
        public void set(long integer) {
            if (count < output.length) {
                output[count++] = integer;
            } else {
                malformed = true;
            }
        }

        @Override
        public void set(ByteBuffer bytes) {
            malformed = true;
        }

        @Override
        public void set(double number) {
            malformed = true;
        }

        @Override
        public void set(boolean value) {
            malformed = true;
        }

        @Override
        public String toString() {
            return "Reply{" + count + " of " + output.length + " integers" + (malformed ? ", malformed" : "")
                    + (error != null ? ", error " + error : "") + '}';
        }
    }

    /** What the cluster client reads to route a call: its first key, by which it finds the slot. */
    private static final class Route extends CommandArgs<String, String> {
        private final ScriptCall call;

        Route(ScriptCall call) {
            super(StringCodec.UTF8);
            this.call = call;
        }

        @Override
        public ByteBuffer getFirstEncodedKey() {
            for (Part p : call.parts) {
                if (p.group == call.group) {
                    return ByteBuffer.wrap(KeyNames.bytes(p));
                }
            }
            return null;
        }

        @Override
        public int count() {
            int requests = call.to() - call.from();
            return 2 + call.count + 2 + (call.op == 'p' ? 1 : call.op == 'c' ? Binding.STRIDE + requests
                    : call.count * Binding.STRIDE * requests);
        }

        @Override
        public void encode(ByteBuf buf) {
            throw new UnsupportedOperationException("a script call encodes itself");
        }

        @Override
        public String toCommandString() {
            return call.toString();
        }

        @Override
        public String toString() {
            return call.toString();
        }
    }
}

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
     * {@code 'a'}), {@code release} ({@code 'r'}, a release or a refund), {@code renew}
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

    private static final byte[] EMPTY = Resp.encoded("");
    private static final byte[][] OPS = new byte[128][];
    private static final VarHandle FINISHED;

    static {
        for (char op : new char[] {'a', 'r', 'n', 'p'}) {
            OPS[op] = Resp.encoded(String.valueOf(op));
        }
        try {
            FINISHED = MethodHandles.lookup().findVarHandle(ScriptCall.class, "finished", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Script script;
    private final Via via;
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
    @SuppressWarnings("unused") // through FINISHED
    private volatile int finished;

    private ScriptCall(Script script, Via via, char op, long now, Part[] parts, int group,
            int count, boolean cluster, Callback callback) {
        super(via.type, new Reply(op == 'a' ? count * REPLY : 0));
        this.script = script;
        this.via = via;
        this.op = op;
        this.now = now;
        this.parts = parts;
        this.group = group;
        this.count = count;
        this.callback = callback;
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
        return new ScriptCall(script, Via.EVAL, op, now, parts, group, count, args != null, callback);
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

    /** @return the group of parts this call carries */
    public int group() {
        return group;
    }

    /** @return whether this call sends the script's source rather than its digest */
    public boolean sendsSource() {
        return via == Via.EVAL;
    }

    /** @return how this call names what Redis runs */
    public Via via() {
        return via;
    }

    @Override
    public void encode(ByteBuf buf) {
        int values = op == 'p' ? 1 : count * Binding.STRIDE;
        Resp.array(buf, 3 + count + 2 + values);
        buf.writeBytes(via == Via.FCALL ? script.fcallHead()
                : via == Via.EVALSHA ? script.evalshaHead() : script.evalHead());
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
        if (!FINISHED.compareAndSet(this, 0, 1)) {
            return;
        }
        // Recorded before the waiter wakes: a decision that returned has its round trip counted.
        Timing t = timing;
        if (answered && t != null) {
            t.latency().record(operation(op), (micros(t.clock()) - sentMicros) * 1000L);
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
            case 'a' -> 0;
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
        return via == Via.FCALL && exception == null && e != null && e.startsWith(NO_FUNCTION);
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
        return "ScriptCall{" + via + ", op " + op + ", " + count + " key(s)}";
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
            return 2 + call.count + 2 + (call.op == 'p' ? 1 : call.count * Binding.STRIDE);
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
